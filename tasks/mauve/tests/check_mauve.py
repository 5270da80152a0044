"""Trusted checks for mauve/1 (never enter the sandbox): every curve recomputed from Eqs. (3)-(6) of paper.md
with code written independently of the reference (a loop over buckets for KL, the curve traced from lambda near 1
to lambda near 0), hand-derived values, and the properties Section 3.3 states. Inputs are read from the fixtures
and from `ref`, never from `out`."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from lmrbench.checks import check, close, equal, expect

with open(Path(__file__).parent / "fixtures" / "cases.json", encoding="utf-8") as _f:
    CASES = json.load(_f)

TOL = dict(rtol=1e-9, atol=1e-12)


def kl(a, b) -> float:
    # sum over buckets with a_j > 0 of a_j log(a_j / b_j); infinite if some b_j = 0 there
    total = 0.0
    for x, y in zip(a, b):
        if x > 0:
            if y <= 0:
                return math.inf
            total += x * math.log(x / y)
    return total


def curve(p, q, num_lambdas: int = 25, c: float = 5.0) -> np.ndarray:
    # Eq. (5) at lambda = i / (L + 1), i = L, ..., 1 (so x increases), between the end points (0, 1) and (1, 0)
    pts = [(0.0, 1.0)]
    for i in range(num_lambdas, 0, -1):
        lam = i / (num_lambdas + 1)
        r = [lam * x + (1 - lam) * y for x, y in zip(p, q)]
        pts.append((math.exp(-c * kl(q, r)), math.exp(-c * kl(p, r))))
    pts.append((1.0, 0.0))
    return np.array(pts)


def area(pts: np.ndarray) -> float:
    return float(sum((pts[i + 1, 0] - pts[i, 0]) * (pts[i + 1, 1] + pts[i, 1]) / 2 for i in range(len(pts) - 1)))


@check("kl_hand")
def kl_hand_values(out, ref):
    # 0.5 ln(0.5/0.25) + 0.5 ln(0.5/0.75) = 0.5 ln(4/3) = 0.14384103622589045
    close(out["half_quarter"], 0.14384103622589045, **TOL, what="KL([.5,.5] || [.25,.75])")
    close(out["same"], 0.0, atol=1e-15, what="KL(a || a) = 0")
    # the zero bucket of a contributes nothing: 1 * ln(1 / 0.5) = ln 2
    close(out["zero_in_a"], math.log(2.0), **TOL, what="0 log 0 = 0")
    expect(out["zero_in_b"] == math.inf, "KL is infinite where b is zero and a is not")
    # 0.1 ln(0.1/0.9) + 0.9 ln(0.9/0.1) = 0.8 ln 9
    close(out["list_input"], 0.8 * math.log(9.0), **TOL, what="KL([.1,.9] || [.9,.1])")


@check("curve_identical")
def identical_distributions(out, ref):
    # P = Q: R_lambda = P for every lambda, both KLs 0, every point (1, 1); with the end points the area is 1
    want = np.array([[0.0, 1.0]] + [[1.0, 1.0]] * 5 + [[1.0, 0.0]])
    close(out["curve"], want, **TOL, what="the curve of P = Q")
    close(out["area"], 1.0, **TOL, what="MAUVE(P, P) = 1")


@check("curve_disjoint")
def disjoint_supports(out, ref):
    # disjoint P, Q: KL(P || R) = log(1 / lambda), KL(Q || R) = log(1 / (1 - lambda)): the point is
    # ((1 - lambda)^c, lambda^c)
    for name, num, c in [("default", 25, 5.0), ("c1_l9", 9, 1.0)]:
        lams = [i / (num + 1) for i in range(num, 0, -1)]
        want = np.array([[0.0, 1.0]] + [[(1 - lam) ** c, lam**c] for lam in lams] + [[1.0, 0.0]])
        close(out[f"{name}.curve"], want, **TOL, what=f"{name}: ((1 - lambda)^c, lambda^c)")
        close(out[f"{name}.area"], area(want), **TOL, what=f"{name}: area")
    # c = 1: every point lies on x + y = 1, so the trapezoids add up to exactly 1/2
    close(out["c1_l9.area"], 0.5, **TOL, what="area under x + y = 1")


@check("curve_area_hand")
def area_hand(out, ref):
    close(out["square"], 1.0, **TOL, what="unit square")
    close(out["triangle"], 0.5, **TOL, what="triangle")
    # 0.25*1.9/2 + 0.25*1.4/2 + 0.4*0.6/2 + 0.1*0.1/2 = 0.2375 + 0.175 + 0.12 + 0.005 = 0.5375
    close(out["steps"], 0.5375, **TOL, what="trapezoids")


@check("curve_pairs[*]")
def curve_pairs_recomputed(out, ref):
    c = CASES["pairs"][ref["case"]]
    num, scale = c["cfg"].get("num_lambdas", 25), c["cfg"].get("scaling", 5.0)
    want = curve(c["p"], c["q"], num, scale)
    close(out["kl_pq"], kl(c["p"], c["q"]), **TOL, what="KL(P || Q)")
    close(out["kl_qp"], kl(c["q"], c["p"]), **TOL, what="KL(Q || P)")
    close(out["curve"], want, **TOL, what="the divergence curve, Eq. (5)")
    close(out["area"], area(want), **TOL, what="MAUVE, Eq. (6)")
    # Section 3.3: symmetric in P and Q, and in (0, 1]
    close(out["area_swapped"], out["area"], **TOL, what="MAUVE(Q, P) = MAUVE(P, Q)")
    expect(0.0 < out["area"] <= 1.0 + 1e-12, "MAUVE lies in (0, 1]")
    expect(np.all(np.diff(out["curve"][:, 1]) <= 1e-15), "y never increases along the curve")


def _shares(p_labels, q_labels, k):
    return np.bincount(p_labels, minlength=k) / len(p_labels), np.bincount(q_labels, minlength=k) / len(q_labels)


@check("quantize_blobs[*]")
def quantize_consistent(out, ref):
    c = CASES["features"][ref["case"]]
    n_p, n_q = len(c["p"]), len(c["q"])
    k = c["cfg"].get("num_buckets") or max(2, round(min(n_p, n_q) / 10))
    equal(int(out["num_buckets"]), k, what="the configured number of clusters")
    equal(out["p_labels"].shape, (n_p,), what="one label per P sample")
    want_p, want_q = _shares(out["p_labels"], out["q_labels"], k)
    close(out["p_hist"], want_p, rtol=0, atol=1e-15, what="P histogram = cluster shares of P's samples")
    close(out["q_hist"], want_q, rtol=0, atol=1e-15, what="Q histogram = cluster shares of Q's samples")
    scale, num = c["cfg"].get("scaling", 5.0), c["cfg"].get("num_lambdas", 25)
    want = curve(out["p_hist"].tolist(), out["q_hist"].tolist(), num, scale)
    close(out["curve"], want, **TOL, what="the curve of the quantised distributions")
    close(out["score"], area(want), **TOL, what="MAUVE of the quantised distributions")


@check("quantize_blobs[2]")
def same_blobs_close(out, ref):
    # P and Q drawn from the same three well separated blobs (8 samples each per blob in expectation): three
    # clusters, one per blob, so each histogram is its sample's blob shares and MAUVE is high
    expect(out["score"] > 0.9, "samples of the same distribution score high")


@check("mauve_texts")
def human_beats_repetitive(out, ref):
    expect(out["human.score"] > out["repetitive.score"], "held-out human text scores above a degenerate decoder")
    for name in ("human", "repetitive"):
        want = curve(out[f"{name}.p_hist"].tolist(), out[f"{name}.q_hist"].tolist())
        close(out[f"{name}.score"], area(want), **TOL, what=f"{name}: area of its curve")


@check("mauve_same_samples_default_config")
def same_samples(out, ref):
    # identical sample sets: identical histograms, so MAUVE = 1; 40 samples -> max(2, round(40 / 10)) = 4 clusters
    equal(int(out["buckets"]), 4, what="auto number of clusters")
    close(out["p_hist"], out["q_hist"], rtol=0, atol=0, what="same samples, same histogram")
    close(out["score"], 1.0, **TOL, what="MAUVE(P, P) = 1")
