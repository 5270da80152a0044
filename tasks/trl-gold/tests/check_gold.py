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


@check("same_tokenizer_training[beta05]")
@check("same_tokenizer_training[beta1]")
def update_size_vs_release(out, ref):
    close(out["update_norm"], ref["update_norm"], rtol=1e-6, atol=1e-12, what="update norm vs the release")


@check("same_tokenizer_training[beta03_accumulated]")
def accumulated_update_size(out, ref):
    """One SGD step over two accumulated slices: the release's size (divisor = the Trainer's count, which counts
    the repeated generation batch once per slice: 2x the completion tokens) or paper.md section 2's (divisor = the
    accumulated batch's completion tokens, twice the release's update); both accepted."""
    got, rel = float(out["update_norm"]), float(ref["update_norm"])
    ok = [abs(got - s * rel) <= 1e-6 * s * rel for s in (1.0, 2.0)]
    expect(any(ok), f"update norm {got}: neither the release's {rel} nor paper.md's {2 * rel}")


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
    close(out["global_int"], per[mask].sum() / 10.0, rtol=1e-9, atol=1e-12,
          what="sum divided by a global token count given as an int")


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
    prompts, stops = np.asarray(ref["prompts"]), set(np.asarray(ref["stops"]).tolist()) - {-1}
    prompt_mask = np.asarray(ref["prompt_attention_mask"])
    width = prompts.shape[1]
    expect(ids.shape == labels.shape == mask.shape and ids.shape[0] == prompts.shape[0],
           f"shapes {ids.shape} {labels.shape} {mask.shape}")
    expect(np.array_equal(ids[:, :width], prompts), "the returned sequences do not start with the prompts")
    expect(np.all(labels[:, :width] == -100), "prompt positions are labelled")
    expect(np.array_equal(mask[:, :width], prompt_mask), f"the prompt part of the attention mask {mask[:, :width]} "
           f"is not the prompt's own mask {prompt_mask}")
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
    got_lens = np.asarray(out["completion_text_lens"])
    expect(np.array_equal(got_lens, np.asarray(out["decoded_completions_lens"]))
           or np.array_equal(got_lens, np.asarray(out["decoded_completions_lens_plain"])),
           f"completion texts are not the decoded labelled completion tokens: lengths {got_lens}")


@check("on_policy_training[*]")
def on_policy_training_moves(out, ref):
    norm = float(out["update_norm"])
    expect(np.isfinite(norm) and norm > 0, f"the student did not move: update norm {norm}")
    if "teacher_change" in ref:
        expect(float(out["teacher_change"]) == 0.0, f"the teacher's weights changed by {out['teacher_change']}")


# ---------------------------------------------------------------- logged losses (the visible `log` reads them)

def _logs(out, key):
    return np.asarray(out[f"log_{key}"], dtype=np.float64)


def _policy_logs(out, on_policy):
    """`GOLDTrainer.log` (not masked) reports `on_policy_loss` / `off_policy_loss` as the mean training loss of the
    on-policy / off-policy slices since the last log; with one slice per step and a log every step each equals
    the step's logged loss (both rounded to 4 decimals). Only the kind of slice that was trained is reported."""
    loss = _logs(out, "loss")
    used, unused = ("on_policy_loss", "off_policy_loss") if on_policy else ("off_policy_loss", "on_policy_loss")
    expect(loss.size == 2 and np.all(loss >= 0), f"two logged steps expected, got losses {loss}")
    expect(np.all(_logs(out, unused) == -1.0), f"{unused} logged although no such slice was trained: "
           f"{_logs(out, unused)}")
    close(_logs(out, used), loss, rtol=0, atol=2e-4, what=f"logged {used} vs the logged step loss")


@check("same_tokenizer_training[beta05]")
def off_policy_loss_logged_beta05(out, ref):
    _policy_logs(out, on_policy=False)


@check("same_tokenizer_training[beta1]")
def off_policy_loss_logged_beta1(out, ref):
    _policy_logs(out, on_policy=False)


@check("uld_training[*]")
def off_policy_loss_logged_uld(out, ref):
    _policy_logs(out, on_policy=False)


@check("same_tokenizer_training[beta03_accumulated]")
def off_policy_loss_logged_accumulated(out, ref):
    expect(np.all(_logs(out, "on_policy_loss") == -1.0), "on_policy_loss logged with lmbda = 0")
    v = _logs(out, "off_policy_loss")
    expect(np.all(np.isfinite(v) & (v >= 0)), f"off_policy_loss not logged at every step: {v}")


@check("on_policy_training[*]")
def on_policy_loss_logged(out, ref):
    _policy_logs(out, on_policy=True)


@check("uld_training[*]")
def matched_losses_logged(out, ref):
    """With the hybrid loss, the matched / unmatched parts are non-negative where they are logged; the unmatched
    part (sorted L1 over the unmatched vocabulary, which both sides have) is positive."""
    m, u = _logs(out, "matched_loss"), _logs(out, "unmatched_loss")
    expect(np.all((m == -1.0) | (m >= 0)), f"matched_loss {m}")
    expect(np.all((u == -1.0) | (u > 0)), f"unmatched_loss {u}")


# ---------------------------------------------------------------- collator and teacher inputs by meaning

def _row_checks(ids, mask, labels, full, prompt, what):
    real = mask == 1
    expect(np.array_equal(ids[real], full), f"{what}: attended ids {ids[real]} != the conversation's {full}")
    expect(np.all(labels[~real] == -100), f"{what}: padding is labelled")
    lab = labels[real]
    expect(np.all(lab[:len(prompt)] == -100), f"{what}: prompt tokens are labelled")
    expect(np.array_equal(lab[len(prompt):], full[len(prompt):]), f"{what}: completion labels {lab}")


def _collator(out, ref, pre, byte_level):
    ids, mask, labels = (np.asarray(out[pre + k]) for k in ("input_ids", "attention_mask", "labels"))
    prompts, pmask = np.asarray(out[pre + "prompts"]), np.asarray(out[pre + "prompt_attention_mask"])
    offs = np.asarray(out[pre + "byte_offsets"])
    # byte offsets of raw conversations are read only where the collator returns them (undecided: see the probe)
    byte_level = byte_level and bool(out["has_byte_offsets"])
    for r in range(ids.shape[0]):
        full, prompt = np.asarray(ref[f"full_{r}"]), np.asarray(ref[f"prompt_{r}"])
        _row_checks(ids[r], mask[r], labels[r], full, prompt, f"row {r}")
        expect(np.array_equal(prompts[r][pmask[r] == 1], prompt), f"row {r}: prompt {prompts[r]} / {pmask[r]}")
        if byte_level:  # completion-relative offsets (build_teacher_inputs_from_texts docstring), prompt (0, 0)
            real = offs[r][mask[r] == 1]
            want = np.asarray(ref[f"offsets_{r}"])[len(prompt):]
            expect(np.all(real[:len(prompt)] == 0), f"row {r}: prompt byte offsets {real[:len(prompt)]}")
            expect(np.array_equal(real[len(prompt):], want), f"row {r}: completion byte offsets {real} vs {want}")


@check("chatml_collator[messages]")
def collator_messages(out, ref):
    _collator(out, ref, "", True)


@check("chatml_collator[padded]")
def collator_padded(out, ref):
    _collator(out, ref, "got_", True)


@check("chatml_collator[wordlevel]")
def collator_wordlevel(out, ref):
    _collator(out, ref, "", False)


def _teacher_rows(out, ref):
    ids, labels, mask, offs = (np.asarray(out[k]) for k in ("input_ids", "labels", "attention_mask",
                                                              "byte_offsets"))
    eos = int(ref["eos"])
    for r in range(ids.shape[0]):
        prompt, comp = np.asarray(ref[f"prompt_{r}"]), np.asarray(ref[f"completion_{r}"])
        full = np.concatenate([prompt, comp, [eos]])
        _row_checks(ids[r], mask[r], labels[r], full, prompt, f"row {r}")
    return offs, mask


@check("teacher_inputs[extended]")
def teacher_inputs_extended(out, ref):
    """The docstring of build_teacher_inputs_from_texts: prompt and padding offsets (0, 0), completion offsets
    relative to the completion text, the appended EOS at (content_len, content_len); labels mask the prompt."""
    offs, mask = _teacher_rows(out, ref)
    for r in range(offs.shape[0]):
        expect(np.all(offs[r][mask[r] == 0] == 0), f"row {r}: padding byte offsets not (0, 0)")
        n, plen = int(ref[f"content_len_{r}"]), len(np.asarray(ref[f"prompt_{r}"]))
        want = np.concatenate([np.zeros((plen, 2), dtype=np.int64), np.asarray(ref[f"offsets_{r}"]), [[n, n]]])
        real = offs[r][mask[r] == 1]
        expect(np.array_equal(real, want), f"row {r}: byte offsets {real.tolist()} != {want.tolist()}")


@check("teacher_inputs[positional]")
def teacher_inputs_positional(out, ref):
    """Positional ULD: zero offsets (the docstring)."""
    offs, _ = _teacher_rows(out, ref)
    expect(np.all(offs == 0), "positional ULD returns non-zero byte offsets")
