"""Trusted checks for replug/1 (never enter the sandbox): Eqs. (2)-(6) of paper.md recomputed in numpy (float64)
from the inputs the probe echoed, hand-checked values, and the index-refresh schedule of Section 4.4. Parameters
of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-9, atol=1e-12)
F32 = dict(rtol=1e-4, atol=1e-5)


def log_softmax(z: np.ndarray) -> np.ndarray:
    m = z.max(-1, keepdims=True)
    return z - m - np.log(np.exp(z - m).sum(-1, keepdims=True))


def lsr_eq6(scores: np.ndarray, lm_logprobs: np.ndarray, gamma: float, beta: float) -> float:
    """Eq. (4) P_R = softmax(s / gamma), Eq. (5) Q = softmax(P_LM / beta) with P_LM = exp(log P_LM) (the
    probability of y), Eq. (6) mean over the batch of KL(P_R || Q)."""
    log_pr = log_softmax(scores / gamma)
    log_q = log_softmax(np.exp(lm_logprobs) / beta)
    return float((np.exp(log_pr) * (log_pr - log_q)).sum(-1).mean())


def mixture_eq3(per_doc: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Eqs. (2)-(3): log sum_d softmax(s)_d p_LM(. | d o x); per_doc (B, k, V) log-probabilities, scores (B, k)."""
    w = np.exp(log_softmax(scores))
    return np.log((w[..., None] * np.exp(per_doc)).sum(1))


# ---------------------------------------------------------------- lsr_loss


@check("lsr_matches_reference[*]")
def lsr_is_eq6(out, ref):
    key = "f32.loss" if "f32.loss" in ref else "loss"
    want = lsr_eq6(ref["scores"], ref["lm_logprobs"], ref["gamma"], ref["beta"])
    close(np.float64(out[key]), want, **(F32 if key.startswith("f32") else F64), what="Eq. (6)")
    expect(float(out[key]) >= -1e-6, "a KL divergence is not negative")


@check("lsr_hand_values")
def lsr_hand(out, ref):
    # P_R = softmax([0, ln 3]) = (1/4, 3/4); equal LM log-probabilities give Q = (1/2, 1/2) for any beta:
    # KL(P_R || Q) = 1/4 ln(1/2) + 3/4 ln(3/2) = 0.1308120359...; (the reverse, KL(Q || P_R) = 1/2 ln(4/3), differs)
    one = 0.25 * math.log(0.5) + 0.75 * math.log(1.5)
    close(out["one"], one, rtol=1e-12, atol=0, what="KL(P_R || Q) by hand")
    expect(abs(one - 0.13081203594113694) < 1e-15, "hand value")
    # P_LM = (e^-0.5, e^-2) and beta = (e^-0.5 - e^-2) / 0.5 give Q = softmax([0.5, 0]) + const = softmax([0.3, -0.2])
    # = P_R (gamma = 1): the divergence is 0 (it would not be if Q used the log-probabilities)
    close(out["matched"], 0.0, rtol=0, atol=1e-14, what="P_R = Q gives 0")
    # Eq. (6) averages over the batch: (one + 0) / 2
    close(out["batch"], one / 2, rtol=1e-12, atol=0, what="mean over the batch")


# ---------------------------------------------------------------- ensemble


@check("ensemble_matches_reference[*]")
def ensemble_is_eq3(out, ref):
    key = "f32.logprobs" if ref["dtype"] == "float32" else "logprobs"
    tol = F32 if ref["dtype"] == "float32" else F64
    got = out[key].astype(np.float64)
    close(got, mixture_eq3(ref["per_doc"], ref["scores"]), **tol, what="Eqs. (2)-(3)")
    close(np.log(np.exp(got).sum(-1)), np.zeros(got.shape[0]), rtol=0, atol=tol["rtol"] * 10,
          what="a normalised distribution")


@check("ensemble_one_document_is_the_lm")
def one_document(out, ref):
    # k = 1: lambda = 1, Eq. (3) is the LM's distribution given d o x
    close(out["ensemble"], out["plain"], rtol=1e-10, atol=1e-12, what="one document")


@check("replug_lm_matches_reference[*]")
def replug_lm_is_top_k(out, ref):
    sims, scores = ref["similarities"], ref["scores"]
    k = scores.shape[1]
    close(scores, -np.sort(-sims, axis=1)[:, :k], rtol=0, atol=1e-12, what="top-k of Eq. (1) by the index")
    close(out["logprobs"], mixture_eq3(ref["per_doc"], scores), **F64, what="Eqs. (2)-(3) over the top-k")
    equal(out["refreshes"], 1, what="inference does not re-encode the corpus")


@check("replug_continuation_matches_reference[*]")
def continuation_is_per_token_eq3(out, ref):
    # Section 3.2: Eq. (3) for each token of y (same documents and weights), log of the product over tokens
    w = np.exp(log_softmax(ref["scores"]))
    want = np.log((w[..., None] * np.exp(ref["per_token"])).sum(1)).sum(-1)
    close(out["logprob"], want, **F64, what="product of per-token ensembles")
    equal(out["refreshes"], 1, what="inference does not re-encode the corpus")


# ---------------------------------------------------------------- LSRTrainer


@check("trainer_loss_matches_reference[*]")
def trainer_loss_is_eq6(out, ref):
    want = lsr_eq6(ref["scores"], ref["lm_logprobs"], ref["gamma"], ref["beta"])
    close(out["loss"], want, rtol=1e-8, atol=1e-11, what="Eq. (6) on the retrieved top-k")
    equal(out["steps_after_loss"], 0, what="loss() takes no step")
    equal(out["refreshes_after_loss"], 1, what="loss() does not refresh the index")


@check("trainer_steps_match_reference[*]")
def refresh_schedule(out, ref):
    t = int(ref["index_refresh"])
    n = ref["losses"].shape[0]
    equal(out["steps"], n, what="one step per batch")
    for s in range(1, n + 1):
        m = (s // t) * t
        stored = ref["encoded0"] if m == 0 else ref["encoded_after"][m - 1]
        close(out["index_after"][s - 1], stored, rtol=0, atol=1e-12,
              what=f"after step {s} the index holds the embeddings of step {m} (Section 4.4, T = {t})")
        equal(int(out["refreshes"][s - 1]), 1 + s // t, what=f"refreshes after step {s}")


@check("lm_stays_frozen")
def frozen(out, ref):
    equal(out["lm_max_change"], 0.0, what="the LM is never updated")


@check("train_script_run")
def script(out, ref):
    # 16 pairs in batches of 4: 4 steps, T = 3: the initial build and one refresh
    equal(out["refreshes"], 2, what="refreshes")
    expect(np.all(np.asarray(out["losses"]) >= -1e-9), "KL losses are not negative")
