"""Trusted checks for mrl/1 (never enter the sandbox): Eq. (1) and its gradient with respect to the representation
recomputed in numpy from the fixtures (MRL: one classifier per prefix; MRL-E: prefixes of one weight matrix),
adaptive classification and funnel retrieval by direct loops, hand-derived values, and the loss decreasing during
a short training run. Inputs are read from the fixtures and from `ref`, never from `out`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

TOL = dict(rtol=1e-9, atol=1e-12)


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def head_values(c: dict):
    z = np.asarray(c["z"])
    n, d = z.shape
    y = np.asarray(c["labels"])
    cs = c["importance"] or [1.0] * len(c["dims"])
    logits, loss, grad_z = [], 0.0, np.zeros_like(z)
    for i, m in enumerate(c["dims"]):
        w = np.asarray(c["weights"][0])[:, :m] if c["efficient"] else np.asarray(c["weights"][i])
        lg = z[:, :m] @ w.T + np.asarray(c["biases"][i])
        logits.append(lg)
        p = softmax(lg)
        loss += cs[i] * float(np.mean(-np.log(p[np.arange(n), y])))
        g = p.copy()
        g[np.arange(n), y] -= 1.0
        grad_z[:, :m] += cs[i] * (g / n) @ w
    return logits, loss, grad_z


@check("logits_hand")
def logits_values(out, ref):
    # z = (1, 2, 3, 4). MRL: m=1: (1, -1) * 1 + (0, .5) = (1, -.5); m=2: (1, 2); m=4: (10, 4) + (1, -1) = (11, 3)
    close(out["mrl.0"], [[1.0, -0.5]], **TOL, what="granularity 1")
    close(out["mrl.1"], [[1.0, 2.0]], **TOL, what="granularity 2")
    close(out["mrl.2"], [[11.0, 3.0]], **TOL, what="granularity 4")
    # MRL-E with W = [[1, 2, 0, 1], [0, 1, 1, 0]]: m=1: (1, 0) + (0, .5); m=2: (5, 2); m=4: (9, 5) + (1, -1)
    close(out["mrl_e.0"], [[1.0, 0.5]], **TOL, what="MRL-E granularity 1: first column of the shared W")
    close(out["mrl_e.1"], [[5.0, 2.0]], **TOL, what="MRL-E granularity 2")
    close(out["mrl_e.2"], [[10.0, 4.0]], **TOL, what="MRL-E granularity 4")


@check("heads[*]")
def heads_recomputed(out, ref):
    c = CASES["heads"][ref["case"]]
    logits, loss, grad_z = head_values(c)
    for i, lg in enumerate(logits):
        close(out[f"logits.{i}"], lg, **TOL, what=f"logits of granularity {c['dims'][i]}")
    close(out["loss"], loss, **TOL, what="Eq. (1): sum over granularities of c_m times the mean cross-entropy")
    close(out["grad_z"], grad_z, rtol=1e-8, atol=1e-12, what="gradient with respect to the representation")
    if c["efficient"]:
        equal(out["grad_w"][1], 1, what="MRL-E has one weight matrix")


@check("adaptive_hand")
def adaptive_values(out, ref):
    # ex 0: softmax(3, 0) max = .953 >= .8 at granularity 0 -> class 0
    # ex 1: .622 < .8; then softmax(0, 2) = .881 >= .8 -> class 1 at granularity 1
    # ex 2: .525, .550 below .8; the last granularity is used whatever its confidence -> argmax(0, .3) = 1
    equal(np.asarray(out["pred"]).tolist(), [0, 1, 1], what="predictions")
    equal(np.asarray(out["used"]).tolist(), [0, 1, 2], what="granularity used")


@check("adaptive[*]")
def adaptive_loop(out, ref):
    c = CASES["adaptive"][ref["case"]]
    logits = [np.asarray(lg) for lg in c["logits"]]
    preds, used = [], []
    for r in range(logits[0].shape[0]):
        for i, lg in enumerate(logits):
            p = softmax(lg[r])
            if p.max() >= c["thresholds"][i] or i == len(logits) - 1:
                preds.append(int(np.argmax(p)))
                used.append(i)
                break
    equal(np.asarray(out["pred"]).tolist(), preds, what="predictions")
    equal(np.asarray(out["used"]).tolist(), used, what="granularity used")


@check("funnel_hand")
def funnel_values(out, ref):
    # cosines with q = (1, .1, 0): rows 0 and 4 .995 (equal: lower index first), row 2 .774, row 3 .704, row 1 .0995
    equal(np.asarray(out["one_stage"]).tolist(), [[0, 4, 2]], what="one stage")
    # prefix 1: cosines (1, 0, 1, 1, 1) -> shortlist 0, 2, 3, 4; full size re-ranks them: 0, 4, 2, 3 -> keep 2
    equal(np.asarray(out["two_stage"]).tolist(), [[0, 4]], what="two stages")


@check("funnels[*]")
def funnel_loop(out, ref):
    c = CASES["funnels"][ref["case"]]
    q, db = np.asarray(c["queries"]), np.asarray(c["database"])
    want = []
    for r in range(len(q)):
        short = list(range(len(db)))
        for dim, k in c["cascade"]:
            a = q[r, :dim] / max(np.linalg.norm(q[r, :dim]), 1e-12)
            sims = [float(a @ (db[j, :dim] / max(np.linalg.norm(db[j, :dim]), 1e-12))) for j in short]
            order = sorted(range(len(short)), key=lambda t: (-round(sims[t], 12), t))[:k]
            short = [short[t] for t in order]
        want.append(short)
    equal(np.asarray(out["ids"]).tolist(), want, what="funnel retrieval")


@check("training_run")
def training_decreases(out, ref):
    for name in ("mrl", "mrl_e"):
        losses = [out[f"{name}.{i}"] for i in range(10)]
        expect(losses[-1] < losses[0], f"{name}: the loss decreases")
        expect(all(math.isfinite(v) for v in losses), f"{name}: finite")
