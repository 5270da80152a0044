"""Trusted checks for cad/1 (never enter the sandbox): the hand-computed distribution, the properties of CAD,
the decoding conventions and the sampling tests, on the outputs probe_cad.py emitted. The default comparison
with the reference's outputs has already passed; inputs are read from the reference's run (`ref`)."""

from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

# fnmatch reads "[...]" as a character class, so parametrised cases are matched as "name*"


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    top = x.max(axis=-1, keepdims=True)
    return x - top - np.log(np.exp(x - top).sum(axis=-1, keepdims=True))


def logsumexp(x: np.ndarray) -> np.ndarray:
    top = x.max(axis=-1)
    return top + np.log(np.exp(x - top[..., None]).sum(axis=-1))


def tokens(out, key: str) -> list:
    return np.asarray(out[key]).tolist()


# --------------------------------------------------------------------------- the distribution


@check("log_probs_match_reference*")
def log_probs_dtype(out, ref):
    equal(out["log_probs#dtype"], "float64", what="dtype")


@check("hand_computed_distribution")
def hand_computed_distribution(out, ref):
    # logits with context [2, 0, 0], without context [1, 1, 0].
    # alpha = 1: 2*[2,0,0] - [1,1,0] = [3, -1, 0]; log Z = ln(e^3 + e^-1 + 1) = 3.0658839037574293
    #   -> log-probs [3 - logZ, -1 - logZ, -logZ].
    # alpha = 0.5: 1.5*[2,0,0] - 0.5*[1,1,0] = [2.5, -0.5, 0]; log Z = ln(e^2.5 + e^-0.5 + 1) = 2.6238729583693674.
    close(out["alpha1"], [-0.06588390375742925, -4.065883903757429, -3.0658839037574293], atol=1e-12, rtol=0,
          what="alpha = 1")
    close(out["alpha0.5"], [-0.1238729583693674, -3.1238729583693674, -2.6238729583693674], atol=1e-12, rtol=0,
          what="alpha = 0.5")


@check("normalised_and_invariant_to_logit_shifts")
def normalised_and_invariant(out, ref):
    close(logsumexp(out["out"]), np.zeros(5), atol=1e-12, rtol=0, what="logsumexp")
    close(out["shifted"], out["out"], atol=1e-9, rtol=1e-9, what="shifted logits")


@check("alpha_zero_and_uninformative_context_give_plain_decoding")
def plain_decoding(out, ref):
    plain = log_softmax(ref["lc"])
    close(out["zero"], plain, atol=1e-12, rtol=0, what="alpha = 0")
    for alpha in (0.5, 1.0, 4.0):
        close(out[f"alpha{alpha}"], plain, atol=1e-10, rtol=0, what=f"uninformative context, alpha = {alpha}")


@check("log_odds_follow_the_contrast")
def log_odds(out, ref):
    # log p(a) - log p(b) = (1 + alpha)(lc_a - lc_b) - alpha (lq_a - lq_b): the context's effect is amplified.
    lc, lq, lp, alpha = ref["lc"], ref["lq"], out["out"], 1.3
    expected = (1 + alpha) * (lc[:, 1:] - lc[:, :1]) - alpha * (lq[:, 1:] - lq[:, :1])
    close(lp[:, 1:] - lp[:, :1], expected, atol=1e-10, rtol=1e-10, what="log-odds")


@check("float32_and_leading_dims")
def float32(out, ref):
    equal(out["out32#dtype"], "float32", what="dtype")
    equal(tuple(out["out32"].shape), (2, 3, 7), what="shape")
    close(out["out32"], out["out64"].astype(np.float32), atol=1e-5, rtol=1e-5, what="float32 vs float64")


# --------------------------------------------------------------------------- the decoding loop


@check("generation_matches_reference*")
def generation(out, ref):
    equal(tuple(out["tokens"].shape), tuple(ref["tokens"].shape), what="tokens shape")
    equal(tokens(out, "tokens"), tokens(ref, "tokens"), what="tokens")


@check("alpha_zero_is_plain_decoding_with_context")
def alpha_zero_generation(out, ref):
    equal(tokens(out, "cad.tokens"), tokens(out, "plain.tokens"), what="tokens")
    close(out["cad.token_logprobs"], out["plain.token_logprobs"], atol=1e-10, rtol=0, what="log-probs")


@check("empty_context_is_plain_decoding_for_any_alpha")
def empty_context(out, ref):
    for alpha in (0.5, 2.0):
        equal(tokens(out, f"alpha{alpha}.tokens"), tokens(out, "plain.tokens"), what=f"tokens, alpha = {alpha}")
        close(out[f"alpha{alpha}.token_logprobs"], out["plain.token_logprobs"], atol=1e-9, rtol=0,
              what=f"log-probs, alpha = {alpha}")


@check("both_branches_condition_on_the_generated_tokens")
def both_branches(out, ref):
    # Every step's CAD log-prob (alpha = 1), recomputed from the teacher-forced logits of both branches.
    n_ctx, n_q = ref["n_ctx"], ref["n_query"]
    toks = np.asarray(out["tokens"]).astype(np.int64)
    full, bare = out["full"], out["bare"]
    for t in range(toks.shape[1]):
        lp = log_softmax(2.0 * full[:, n_ctx + n_q - 1 + t] - bare[:, n_q - 1 + t])
        equal(lp.argmax(-1), toks[:, t], what=f"step {t}: greedy token")
        close(out["token_logprobs"][:, t], np.take_along_axis(lp, toks[:, t:t + 1], axis=-1)[:, 0], atol=1e-9,
              rtol=0, what=f"step {t}: log-prob")


@check("eos_handling")
def eos_handling(out, ref):
    eos, pad, max_new = ref["eos"], ref["pad"], ref["max_new_tokens"]
    rows = tokens(out, "batch.tokens")
    for row_t, row_lp in zip(rows, out["batch.token_logprobs"].tolist(), strict=True):
        if eos in row_t:
            k = row_t.index(eos)
            expect(row_lp[k] < 0.0, "the EOS token itself keeps its log-prob")
            expect(all(t == pad for t in row_t[k + 1:]) and all(v == 0.0 for v in row_lp[k + 1:]),
                   "tokens after EOS are not pad with log-prob 0.0")
        else:
            expect(all(v < 0.0 for v in row_lp), "an unfinished row has a log-prob that is not negative")
    expect(any(eos in row[:-1] for row in rows), "fixture should finish a row early")
    single = tokens(out, "single.tokens")
    expect(len(single[0]) < max_new and single[0][-1] == eos, "a batch of one does not stop at its EOS")


@check("zero_new_tokens")
def zero_new_tokens(out, ref):
    equal(tuple(out["tokens"].shape), (4, 0), what="tokens shape")
    equal(tuple(out["token_logprobs"].shape), (4, 0), what="log-probs shape")


def _cad_probs(ref) -> np.ndarray:
    """The reference CAD distribution of the first step, from the model's logits of the reference run."""
    alpha = ref["alpha"]
    return np.exp(log_softmax((1 + alpha) * ref["logits_with_context"] - alpha * ref["logits_without_context"]))


@check("samples_follow_the_cad_distribution")
def samples_follow(out, ref):
    # 6000 draws: the standard error of each frequency is below 0.0055, so 0.03 is a > 5 sigma margin.
    freq, target = out["frequencies"], _cad_probs(ref)
    equal(freq.shape, target.shape, what="frequencies shape")
    expect(np.abs(freq - target).max() < 0.03, f"max |frequency - p| = {np.abs(freq - target).max():.4f}")


@check("temperature_rescales_the_cad_log_probs")
def temperature_rescales(out, ref):
    freq = out["frequencies"]
    target = np.exp(log_softmax(np.log(_cad_probs(ref)) / 0.5))
    equal(freq.shape, target.shape, what="frequencies shape")
    expect(np.abs(freq - target).max() < 0.03, f"max |frequency - p_T| = {np.abs(freq - target).max():.4f}")
