"""Trusted checks for trl-gold/1 (never enter the sandbox).

The probe records the student's and the teacher's logits that predict every completion token (straight from the
models); the checks rebuild the generalized JSD of paper.md section 2 from them (token-level mean over the
completion tokens, causal shift, temperature, the forward / reverse KL end points) and compare it with the loss
the trainer reports, and rebuild the static loss's reductions from the same formula."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, expect

LOSS_RTOL = 1e-6


def _log_softmax(z):
    z = z - z.max(-1, keepdims=True)
    return z - np.log(np.exp(z).sum(-1, keepdims=True))


def _jsd_per_token(student_logits, teacher_logits, beta, temperature):
    lq = _log_softmax(np.asarray(student_logits, dtype=np.float64) / temperature)
    lp = _log_softmax(np.asarray(teacher_logits, dtype=np.float64) / temperature)
    p, q = np.exp(lp), np.exp(lq)
    if beta == 0.0:
        return (p * (lp - lq)).sum(-1)
    if beta == 1.0:
        return (q * (lq - lp)).sum(-1)
    m = beta * p + (1.0 - beta) * q
    lm = np.log(m)
    return beta * (p * (lp - lm)).sum(-1) + (1.0 - beta) * (q * (lq - lm)).sum(-1)


def _same_tokenizer_loss(out, beta, temperature):
    return _jsd_per_token(out["student_logits"], out["teacher_logits"], beta, temperature).mean()


@check("same_tokenizer_loss[*]")
def jsd_from_the_equations(out, ref):
    want = _same_tokenizer_loss(out, float(ref["beta"]), float(ref["temperature"]))
    close(out["eval_loss"], want, rtol=LOSS_RTOL, atol=1e-10, what="eval loss vs the generalized JSD of paper.md")


@check("same_tokenizer_training[*]")
def training_moves_only_the_student(out, ref):
    expect(float(out["teacher_change"]) == 0.0, f"the teacher's weights changed by {out['teacher_change']}")
    norm = float(out["update_norm"])
    expect(np.isfinite(norm) and norm > 0, f"the student did not move: update norm {norm}")


@check("same_tokenizer_training[beta05]")
def training_start_loss_beta05(out, ref):
    close(out["eval_loss"], _same_tokenizer_loss(out, 0.5, 1.0), rtol=LOSS_RTOL, atol=1e-10, what="eval loss")


@check("same_tokenizer_training[beta1]")
def training_start_loss_beta1(out, ref):
    close(out["eval_loss"], _same_tokenizer_loss(out, 1.0, 1.0), rtol=LOSS_RTOL, atol=1e-10, what="eval loss")


@check("same_tokenizer_training[beta03_accumulated]")
def training_start_loss_beta03(out, ref):
    close(out["eval_loss"], _same_tokenizer_loss(out, 0.3, 1.0), rtol=LOSS_RTOL, atol=1e-10, what="eval loss")


@check("jsd_static[*]")
def static_reductions(out, ref):
    beta = float(ref["beta"])
    s, t = np.asarray(ref["s"]), np.asarray(ref["t"])
    labels = np.asarray(ref["labels"])
    per = _jsd_per_token(s, t, beta, 1.5)
    mask = labels != -100
    close(out["sum"], per[mask].sum(), rtol=1e-9, atol=1e-12, what="reduction='sum' over the unmasked tokens")
    close(out["batchmean"], per[mask].sum() / mask.sum(), rtol=1e-9, atol=1e-12,
          what="token-level mean over the unmasked tokens")
    close(out["global"], per[mask].sum() / 10.0, rtol=1e-9, atol=1e-12,
          what="sum divided by the global token count")
    close(out["unmasked"], _jsd_per_token(s[0], t[0], beta, 1.0).mean(), rtol=1e-9, atol=1e-12,
          what="token-level mean without labels")


@check("uld_loss[*]")
def uld_finite(out, ref):
    v = float(out["eval_loss"])
    expect(np.isfinite(v) and v >= 0, f"ULD loss {v} is not a finite non-negative number")


@check("uld_training[*]")
def uld_training_moves(out, ref):
    norm = float(out["update_norm"])
    expect(np.isfinite(norm) and norm > 0, f"the student did not move: update norm {norm}")


@check("on_policy_outputs[*]")
def completions_end_at_their_first_stop(out, ref):
    ids, mask, labels = (np.asarray(out[k]) for k in ("new_input_ids", "attention_mask", "labels"))
    prompts, stops = np.asarray(ref["prompts"]), set(np.asarray(ref["stops"]).tolist())
    width = prompts.shape[1]
    expect(ids.shape == labels.shape == mask.shape and ids.shape[0] == prompts.shape[0],
           f"shapes {ids.shape} {labels.shape} {mask.shape}")
    expect(np.array_equal(ids[:, :width], prompts), "the returned sequences do not start with the prompts")
    expect(np.all(labels[:, :width] == -100) and np.all(mask[:, :width] == 1), "prompt labels / mask wrong")
    want_lab, want_mask = np.asarray(ref["labels"]), np.asarray(ref["attention_mask"])
    for r in range(ids.shape[0]):
        comp = ids[r, width:].tolist()
        end = next((j for j, t in enumerate(comp) if t in stops), len(comp) - 1)
        keep = np.arange(len(comp)) <= end
        expect(np.array_equal(labels[r, width:][keep], np.asarray(comp)[keep]),
               f"row {r}: the completion up to and including its first stop token is not labelled")
        expect(np.all(labels[r, width:][~keep] == -100), f"row {r}: tokens after the first stop are labelled")
        expect(np.array_equal(mask[r, width:], keep.astype(mask.dtype)), f"row {r}: attention mask {mask[r]}")
        # greedy decoding of the same model: the completion itself is the reference's
        got = labels[r][labels[r] != -100]
        want = want_lab[r][want_lab[r] != -100]
        expect(np.array_equal(got, want), f"row {r}: greedy completion {got} != {want}")
        expect(int(mask[r].sum()) == int(want_mask[r].sum()), f"row {r}: attention mask {mask[r]}")
    expect(int(out["n_completion_texts"]) == ids.shape[0], "one completion text per row")
    close(out["completion_text_lens"], out["decoded_completions_lens"], rtol=0, atol=0,
          what="completion texts are the decoded labelled completion tokens")


@check("on_policy_training[*]")
def on_policy_training_moves(out, ref):
    norm = float(out["update_norm"])
    expect(np.isfinite(norm) and norm > 0, f"the student did not move: update norm {norm}")
    if "teacher_change" in ref:
        expect(float(out["teacher_change"]) == 0.0, f"the teacher's weights changed by {out['teacher_change']}")
