"""Trusted checks for entropy-min/1 (never enter the sandbox): hand-checked values, and an independent numpy replay
of paper.md's equations on the inputs the probe emitted. Parameters are read from `ref`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

LN2 = math.log(2.0)
F64 = dict(rtol=1e-10, atol=1e-12)
F32 = dict(rtol=5e-5, atol=5e-6)
MODES = ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum")


def log_softmax(x: np.ndarray) -> np.ndarray:
    m = x.max(axis=-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=-1, keepdims=True))


def entropy(x: np.ndarray) -> np.ndarray:
    lp = log_softmax(x)
    return -(np.exp(lp) * lp).sum(axis=-1)


def agg(values: np.ndarray, mask: np.ndarray, mode: str) -> float:
    """emr/config.py's LOSS_AGG_MODES, literally."""
    m = mask.astype(np.float64)
    if mode == "token-mean":
        return float((values * m).sum() / m.sum())
    rows = (values * m).sum(axis=1)
    if mode == "seq-mean-token-mean":
        rows = rows / m.sum(axis=1)
    return float(rows.mean())


@check("hand_values")
def hand_values(out, ref):
    # Eq. (1): H(uniform over 4) = ln 4; H(1/2, 1/4, 1/8, 1/8) = 1/2 + 2/4 + 3/8 + 3/8 = 1.75 bits = 1.75 ln 2 nats
    close(out["entropy"], [2 * LN2, 1.75 * LN2], **F64)
    # masked values: row 0 -> 2, 3, 4; row 1 -> 40
    close(out["agg.token-mean"], 49 / 4, **F64)             # (9 + 40) / 4 tokens
    close(out["agg.seq-mean-token-mean"], (3 + 40) / 2, **F64)
    close(out["agg.seq-mean-token-sum"], (9 + 40) / 2, **F64)
    # entropies: row 0 -> 2 ln2 (uniform), 1.75 ln2 (dyadic); row 1 -> 1.75 ln2
    close(out["ft.token-mean"], 5.5 / 3 * LN2, **F64)
    close(out["ft.seq-mean-token-mean"], (1.875 + 1.75) / 2 * LN2, **F64)
    close(out["ft.seq-mean-token-sum"], (3.75 + 1.75) / 2 * LN2, **F64)
    # Eq. (5): sum of log-probabilities of the sampled response tokens: row 0 -> log 1/4 + log 1/4; row 1 -> log 1/8
    close(out["rewards.sequence"], [-4 * LN2, -3 * LN2], **F64)
    # Eq. (6): minus the sum of the response positions' entropies
    close(out["rewards.token"], [-3.75 * LN2, -1.75 * LN2], **F64)
    # Eq. (8): r_i minus the mean of the other rewards of its group of 3
    close(out["rloo"], [1 - 4, 2 - 3.5, 6 - 1.5, 0 - 4.5, 4 - 2.5, 5 - 2.0], **F64)


@check("entropy_extremes")
def entropy_extremes(out, ref):
    # uniform over 3 -> ln 3; one logit 60 above the others -> about 61 e^-60 < 1e-24; two equal logits, the third
    # 303 below -> ln 2 (to within e^-300). No probability underflows to 0 in float64 (exp(-310) > 1e-308).
    close(out["h"], [math.log(3.0), 0.0, 0.0, LN2], rtol=1e-12, atol=1e-12)
    close(out["h3d"], np.array([math.log(3.0), 0.0, 0.0, LN2]).reshape(2, 2), rtol=1e-12, atol=1e-12)


@check("losses_match_reference_*")
def losses_replay(out, ref):
    tol = F32 if ref["dtype"] == "torch.float32" else F64
    logits, values, mask = ref["logits"], ref["values"], ref["mask"]
    h = entropy(logits)
    close(out["out.entropy"], h, **tol)
    for m in MODES:
        close(out[f"out.agg.{m}"], agg(values, mask, m), **tol)
        close(out[f"out.ft.{m}"], agg(h, mask, m), **tol)
        # d/d values of the aggregate: zero off the mask
        equal(bool((out[f"out.agg_grad.{m}"][~mask] == 0).all()), True, what=f"no gradient off the mask ({m})")


@check("rl_matches_reference_*")
def rl_replay(out, ref):
    logits, ids, mask, adv = ref["logits"], ref["ids"], ref["mask"], ref["advantages"]
    lp = np.take_along_axis(log_softmax(logits), ids[..., None], axis=-1)[..., 0]
    close(out["out.rewards.sequence"], (lp * mask).sum(axis=1), **F32)
    close(out["out.rewards.token"], -(entropy(logits) * mask).sum(axis=1), **F32)
    for kind in ("sequence", "token"):
        equal(out[f"out.rewards_grad.{kind}"], False, what=f"{kind} rewards are detached")
    k = ref["group_size"]
    if k >= 2:
        r = adv.reshape(-1, k)
        base = (r.sum(axis=1, keepdims=True) - r) / (k - 1)
        close(out["out.rloo"], (r - base).reshape(-1), **F32)
    for m in MODES:
        # Eq. (7) as written (-A log p), or as a ratio surrogate exp(log p - sg(log p)) * A, whose value is -A per
        # token at the sampling parameters and whose gradient is the same (the gradient is compared with the
        # reference by default)
        value = float(out[f"out.rl.{m}"])
        readings = (agg(-adv[:, None] * lp, mask, m), agg(-adv[:, None] * np.ones_like(lp), mask, m))
        expect(any(abs(value - r) <= 5e-5 * abs(r) + 5e-6 for r in readings),
               f"{m}: loss {value} is neither reading {readings}")
        equal(out[f"out.adv_grad_none.{m}"], True, what="no gradient reaches the advantages")


@check("inf_matches_reference_*")
def inf_properties(out, ref):
    logits, thr, max_steps = ref["logits"], ref["threshold"], ref["max_steps"]
    steps, adjusted = out["steps"], out["adjusted"].astype(np.float64)
    equal(bool((out["input_after"] == logits).all()), True, what="the input logits are not modified")
    equal(out["requires_grad"], False, what="the adjusted logits are detached")
    h0, h1 = entropy(logits), entropy(adjusted)
    for b in range(logits.shape[0]):
        expect(0 <= steps[b] <= max_steps, f"row {b}: {steps[b]} steps, at most {max_steps}")
        if h0[b] <= thr:   # Section 3.3: already below the threshold -> unchanged
            equal(int(steps[b]), 0, what=f"row {b} starts below the threshold")
            close(adjusted[b], logits[b], rtol=1e-6, atol=1e-6)
        if steps[b] < max_steps:   # stopped early: because the threshold was reached
            expect(h1[b] <= thr + 1e-4, f"row {b} stopped after {steps[b]} steps with entropy {h1[b]} > {thr}")


def _sgd_replay(z: np.ndarray, lr: float, max_steps: int, thr: float) -> tuple[np.ndarray, int]:
    """Eq. (9) by plain gradient descent: dH/dz_i = -p_i (log p_i + H)."""
    n = 0
    for _ in range(max_steps):
        lp = log_softmax(z)
        h = -(np.exp(lp) * lp).sum()
        if h <= thr:
            break
        z = z - lr * (-np.exp(lp) * (lp + h))
        n += 1
    return z, n


@check("inf_matches_reference_f64[*]")
def inf_sgd_replay(out, ref):
    if ref["optimizer"] != "sgd":
        return
    lr = ref["lr"]
    for b in range(ref["logits"].shape[0]):
        z, n = _sgd_replay(ref["logits"][b], lr, ref["max_steps"], ref["threshold"])
        equal(int(out["steps"][b]), n, what=f"row {b}: SGD steps")
        close(out["adjusted"][b], z, rtol=1e-9, atol=1e-10)


@check("decode_matches_reference[*]")
def decode_properties(out, ref):
    # Section 3.3: no parameter changes (the reference's parameters after decoding are the model's initial ones)
    equal(bool((out["params_after"] == ref["params_after"]).all()), True, what="parameters unchanged")
