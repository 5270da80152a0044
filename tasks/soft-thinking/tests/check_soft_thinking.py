"""Trusted checks for soft-thinking/1 (never enter the sandbox): hand-checked values, a numpy replay of the concept
token (Eq. (3) with the repository's filtering order, SoftThinkingConfig), a replay of Cold Stop (Section 3.3), and
the end-to-end generation under both readings of when Cold Stop ends thinking: the concept token whose step
completes the run of low-entropy steps is fed before the end-of-thinking token, or it is replaced by it.
Parameters are read from `ref`."""
from __future__ import annotations

import numpy as np

from lmrbench.checks import check, close, equal, expect

F64 = dict(rtol=1e-10, atol=1e-12)
F32 = dict(rtol=2e-5, atol=2e-6)
E2E = dict(rtol=1e-5, atol=1e-7)  # float64 model; measured spread 6.1e-10 abs (matmul vs weighted row sum)


def seq(d: dict, key: str) -> list:
    kind, n = d[key]
    equal(kind, "seq", what=f"{key} is a list")
    return [d[f"{key}.{i}"] for i in range(n)]


def concept_np(logits: np.ndarray, t: float, k: int, p: float) -> np.ndarray:
    """softmax(logits / t); keep the k most probable; renormalise; keep the smallest most-probable prefix whose mass
    reaches p; renormalise."""
    z = logits / t
    z = z - z.max(axis=-1, keepdims=True)
    pr = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
    flat = pr.reshape(-1, pr.shape[-1]).copy()
    v = flat.shape[-1]
    for row in flat:
        order = np.argsort(-row, kind="stable")
        kk = k if 0 < k < v else v
        row[order[kk:]] = 0.0
        row /= row.sum()
        if p < 1.0:
            cum = np.cumsum(row[order])
            n = int(np.searchsorted(cum, p - 1e-12)) + 1  # first prefix whose mass reaches p
            row[order[n:]] = 0.0
            row /= row.sum()
    return flat.reshape(pr.shape)


def entropy_np(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=-1)


# ---------------------------------------------------------------- concept_token


@check("concept_token_matches[*]")
def concept_is_eq3(out, ref):
    key = "f32" if "f32" in ref else "f64"
    want = concept_np(ref["logits"], ref["temperature"], ref["top_k"], ref["top_p"])
    close(out[key], want, **(F32 if key == "f32" else F64), what="concept token (Eq. (3))")
    close(out[key].sum(axis=-1), np.ones(want.shape[:-1]), **(F32 if key == "f32" else F64), what="sums to one")


@check("concept_token_hand_values")
def concept_hand(out, ref):
    # p = (0.4, 0.3, 0.2, 0.1)
    close(out["plain"], [0.4, 0.3, 0.2, 0.1], **F64, what="no filtering")
    close(out["k2"], [4 / 7, 3 / 7, 0, 0], **F64, what="top-2: (0.4, 0.3) / 0.7")
    close(out["p06"], [4 / 7, 3 / 7, 0, 0], **F64, what="top-p 0.6: 0.4 < 0.6 <= 0.7, two tokens")
    close(out["p075"], [4 / 9, 3 / 9, 2 / 9, 0], **F64, what="top-p 0.75: 0.7 < 0.75 <= 0.9, three tokens")
    close(out["k3p07"], [4 / 7, 3 / 7, 0, 0], **F64, what="top-3 (4/9, 3/9, 2/9), then p 0.7: 7/9 >= 0.7")
    close(out["t05"], [8 / 15, 3 / 10, 2 / 15, 1 / 30], **F64, what="temperature 0.5: p^2 / 0.30")
    close(out["k1"], [1, 0, 0, 0], **F64, what="top-1 is one-hot")
    close(out["p_small"], [1, 0, 0, 0], **F64, what="top-p 0.1 keeps the most probable token")


# ---------------------------------------------------------------- concept_embedding


@check("concept_embedding_matches[*]")
def embedding_is_eq4(out, ref):
    key = "f32" if "f32.weighted" in ref else "f64"
    tol = F32 if key == "f32" else F64
    ct, w = ref["concept"], ref["weight"]
    close(out[f"{key}.weighted"], ct @ w, **tol, what="Eq. (4): probability-weighted mixture")
    kept = (ct > 0).astype(np.float64)
    close(out[f"{key}.uniform"], (kept @ w) / kept.sum(axis=-1, keepdims=True), **tol,
          what="Section 4.3: uniform average of the kept tokens' embeddings")


# ---------------------------------------------------------------- ColdStop


@check("cold_stop_decisions[*]")
def cold_stop_replay(out, ref):
    # Section 3.3: stop once the entropy has stayed below the threshold for `patience` consecutive steps
    ent, thr, pat, reset_at = ref["entropies"], ref["threshold"], ref["patience"], ref["reset_at"]
    for key, reset in (("plain", -1), ("with_reset", reset_at)):
        run, want = 0, []
        for t, h in enumerate(ent):
            if t == reset:
                run = 0
            run = run + 1 if h < thr else 0
            want.append(run >= pat)
        equal(seq(out, key), want, what=f"stop decisions ({key})")


@check("cold_stop_hand_values")
def cold_stop_hand(out, ref):
    # tau = 0.25, k = 2: 0.1 low (1), 0.25 is not below tau (0), 0.0 (1), 0.2 (2: stop), 0.3 (0), 0.0 (1), 0.0 (2: stop),
    # 0.0 (3: stop)
    equal(seq(out, "first"), [False, False, False, True, False, False, True, True], what="hand sequence")
    # tau = 0: no entropy is below it
    equal(seq(out, "zero_threshold"), [False, False], what="zero threshold")


# ---------------------------------------------------------------- generation


def expect_generation(out, ref, what: str) -> None:
    c_ref, c_out = ref["concepts"], np.asarray(out["concepts"], dtype=np.float64)
    n_ref, n_out = c_ref.shape[0], c_out.shape[0] if c_out.ndim == 2 else -1
    expect(c_out.ndim == 2 and c_out.shape[1] == c_ref.shape[1], f"{what}: concept tokens of shape {c_out.shape}")
    equal(out["answer"].tolist(), out["replay"].tolist(),
          what=f"{what}: the answer is the greedy continuation after the concept tokens and </think>")
    thr, pat, budget = ref["threshold"], ref["patience"], ref["max_think"]
    low_run = n_ref >= pat and thr > 0 and bool((entropy_np(c_ref[n_ref - pat:]) < thr).all())
    if n_out == n_ref:
        close(c_out, c_ref, **E2E, what=f"{what}: concept tokens")
        equal(out["answer"].tolist(), ref["answer"].tolist(), what=f"{what}: answer")
        ok = {ref["reason"]} | ({"cold_stop", "max_think"} if n_ref == budget and low_run else set())
        expect(out["reason"] in ok, f"{what}: stop reason {out['reason']!r}, expected one of {sorted(ok)}")
    else:
        # the other reading: the concept token that completes the low-entropy run is not fed
        expect(ref["reason"] == "cold_stop" and n_out == n_ref - 1,
               f"{what}: {n_out} concept tokens, the reference fed {n_ref} ({ref['reason']})")
        close(c_out, c_ref[:n_out], **E2E, what=f"{what}: concept tokens")
        equal(out["reason"], "cold_stop", what=f"{what}: stop reason")


@check("generate_end_to_end[*]")
def generation(out, ref):
    expect_generation(out, ref, "generation")


@check("generate_without_cold_stop[*]")
def generation_no_cold(out, ref):
    equal(ref["reason"] != "cold_stop", True, what="reference")
    expect_generation(out, ref, "generation without Cold Stop")
