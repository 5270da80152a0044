"""Trusted checks for arena-bt/1 (never enter the sandbox): every output recomputed from the equations of
paper.md (Eq. (4) penalised as config.py states, Eq. (5), Eq. (6), the win probability of Section 4.2) with code
written independently of the reference (a Newton fit with the gradient and Hessian summed vote by vote), plus
hand-derived values. Parameters of a case are read from `ref`, never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

XI = dict(rtol=0, atol=3e-4)


def sig(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def root(f, lo: float = -50.0, hi: float = 50.0) -> float:
    """Bisection for an increasing f."""
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


def cfg_of(ref: dict, prefix: str = "inputs.cfg.") -> dict:
    c = {"scale": 400.0, "base": 10.0, "init_rating": 1000.0, "anchor_model": None, "anchor_rating": 1000.0,
         "ties": "half", "l2": 1e-4, "reweight": False}
    for k in c:
        if prefix + k in ref:
            c[k] = ref[prefix + k]
    return c


def log_of(ref: dict) -> dict:
    return {k: np.asarray(ref[f"inputs.{k}"]) for k in ("a", "b", "y", "p")} | {"m": int(ref["inputs.m"])}


def gradient(xi: np.ndarray, log: dict, c: dict, idx=None) -> np.ndarray:
    """Gradient of Eq. (4) + (l2 / 2) ||xi||^2, vote by vote (x_t = e_a - e_b)."""
    g = c["l2"] * np.asarray(xi, dtype=np.float64).copy()
    rows = range(len(log["a"])) if idx is None else idx
    for t in rows:
        a, b, y, p = int(log["a"][t]), int(log["b"][t]), float(log["y"][t]), float(log["p"][t])
        if c["ties"] == "drop" and y == 0.5:
            continue
        w = 1.0 / p if c["reweight"] else 1.0
        r = w * (sig(xi[a] - xi[b]) - y)
        g[a] += r
        g[b] -= r
    return g


def newton(log: dict, c: dict, idx=None) -> np.ndarray:
    m = log["m"]
    xi = np.zeros(m)
    rows = range(len(log["a"])) if idx is None else idx
    for _ in range(60):
        h = c["l2"] * np.eye(m)
        for t in rows:
            a, b, y, p = int(log["a"][t]), int(log["b"][t]), float(log["y"][t]), float(log["p"][t])
            if c["ties"] == "drop" and y == 0.5:
                continue
            w = 1.0 / p if c["reweight"] else 1.0
            s = sig(xi[a] - xi[b])
            v = w * s * (1 - s)
            h[a, a] += v
            h[b, b] += v
            h[a, b] -= v
            h[b, a] -= v
        xi = xi - np.linalg.solve(h, gradient(xi, log, c, rows))
    return xi


def elo(xi: np.ndarray, c: dict) -> np.ndarray:
    """Eq. (5): R = s / ln(b) * xi + c, c centring the mean on init_rating or pinning the anchor."""
    r = np.asarray(xi, dtype=np.float64) * c["scale"] / math.log(c["base"])
    if c["anchor_model"] is None:
        return r - r.mean(axis=-1, keepdims=True) + c["init_rating"]
    k = int(c["anchor_model"][1:])
    return r - r[..., k:k + 1] + c["anchor_rating"]


def win_rate(r: np.ndarray, c: dict) -> np.ndarray:
    m = len(r)
    return np.array([[1 / (1 + c["base"] ** ((r[j] - r[i]) / c["scale"])) for j in range(m)] for i in range(m)])


def ranks(low: np.ndarray, high: np.ndarray) -> list[int]:
    """Eq. (6)."""
    return [1 + sum(1 for j in range(len(low)) if j != i and low[j] > high[i]) for i in range(len(low))]


# ---------------------------------------------------------------- hand values


@check("fit_two_models")
def two_models(out, ref):
    # x beat y three times, y beat x once, l2 = 1e-4. By symmetry xi_x = -xi_y = d / 2, and the x-coordinate of
    # the gradient is 3 (sigma(d) - 1) + (sigma(d) - 0) + 1e-4 * d / 2 = 4 sigma(d) - 3 + 5e-5 d = 0.
    d = root(lambda d: 4 * sig(d) - 3 + 5e-5 * d)
    expect(abs(d - math.log(3)) < 1e-3, "d near ln 3")
    close(out["xi"], [d / 2, -d / 2], **XI, what="xi")
    # Eq. (5), centred on 1000: 1000 +- 400 / ln 10 * d / 2
    close(out["rating"], [1000 + 200 * d / math.log(10), 1000 - 200 * d / math.log(10)], atol=5e-2, what="rating")


@check("fit_ties_hand")
def ties_hand(out, ref):
    # votes: x beats y; x-y tie; y-x tie. l2 = 0.5. Half: 3 sigma(d) - 2 + 0.25 d = 0 (ties as target 1/2).
    d = root(lambda d: 3 * sig(d) - 2 + 0.25 * d)
    close(out["half"], [d / 2, -d / 2], **XI, what="half")
    # Drop: only the win remains: sigma(d) - 1 + 0.25 d = 0.
    d = root(lambda d: sig(d) - 1 + 0.25 * d)
    close(out["drop"], [d / 2, -d / 2], **XI, what="drop")


@check("fit_reweight_hand")
def reweight_hand(out, ref):
    # x beats y (prob 0.25), y beats x (prob 0.5), l2 = 0.1. Plain: 2 sigma(d) - 1 + 0.05 d = 0 -> d = 0.
    close(out["plain"], [0.0, 0.0], atol=3e-4, what="plain")
    # Weighted by 1/prob: 4 (sigma(d) - 1) + 2 sigma(d) + 0.05 d = 0.
    d = root(lambda d: 6 * sig(d) - 4 + 0.05 * d)
    close(out["weighted"], [d / 2, -d / 2], **XI, what="weighted")


@check("to_elo_hand")
def to_elo_hand(out, ref):
    xi = np.array([math.log(3), 0.0, -math.log(3) - 1.0])
    k = 400 / math.log(10)  # 173.717792761...
    close(out["default"], k * (xi - xi.mean()) + 1000, rtol=1e-12, what="centred")
    close(out["anchored"], k * (xi - xi[2]) + 1114, rtol=1e-12, what="anchored")
    close(out["natural"], xi - xi.mean(), rtol=1e-12, atol=1e-12, what="scale 1, base e")
    close(out["default"].mean(), 1000.0, rtol=1e-12, what="mean")


@check("rank_hand")
def rank_hand(out, ref):
    # intervals [10,20], [5,8], [-3,4], [-20,-10], [9,12]: above [5,8] lie [10,20] and [9,12] -> rank 3, etc.
    equal(out["rank"], [1, 3, 4, 5, 1], what="rank")


@check("rank_matches_reference[*]")
def rank_ref(out, ref):
    equal(out["rank"], ranks(np.asarray(ref["low"]), np.asarray(ref["high"])), what="rank")


@check("win_rate_hand")
def win_rate_hand(out, ref):
    # 200 points = odds 10^(1/2): 1 / (1 + 10^-0.5) = 0.7597469266479578; 400 points: 10/11
    w = out["default"]
    close(w[0, 1], 0.7597469266479578, rtol=1e-12, what="200 points")
    close(w[0, 2], 10 / 11, rtol=1e-12, what="400 points")
    close(w[1, 3], 0.5, rtol=1e-12, what="equal ratings")
    close(np.diag(w), [0.5] * 4, rtol=1e-12, what="diagonal")
    close(w + w.T, np.ones((4, 4)), rtol=1e-12, what="complement")
    # natural scale, xi gap ln 3: P(second beats first) = 3 / 4
    close(out["natural"], [[0.5, 0.25], [0.75, 0.5]], rtol=1e-12, what="natural")


@check("to_elo_matches_reference[*]")
def to_elo_ref(out, ref):
    xi = np.asarray(ref["xi"])
    m = xi.shape[-1]
    close(out["centred"], elo(xi, cfg_of({}, "")), rtol=1e-12, atol=1e-9, what="centred")
    c = cfg_of({}, "") | {"anchor_model": f"m{m - 1}", "anchor_rating": 1250.0, "scale": 200.0, "base": 2.0}
    close(out["anchored"], elo(xi, c), rtol=1e-12, atol=1e-9, what="anchored")


# ---------------------------------------------------------------- fits


@check("fit_matches_reference[*]")
def fit_ref(out, ref):
    log, c = log_of(ref), cfg_of(ref)
    xi = np.asarray(out["xi"])
    g = gradient(xi, log, c)
    scale = max(1.0, float(np.abs(gradient(np.zeros(log["m"]), log, c)).max()))
    expect(float(np.abs(g).max()) <= 1e-3 * scale, f"gradient of the penalised objective not zero: {g}")
    close(xi, newton(log, c), **XI, what="xi")
    close(xi.sum(), 0.0, atol=1e-3, what="sum of xi (the penalty's stationarity)")
    r = elo(xi, c)
    close(out["rating"], r, atol=5e-2, what="rating")
    close(out["win_rate"], win_rate(r, c), atol=1e-4, what="win_rate")


def boot_cfg(ref: dict) -> dict:
    b = {"rounds": 100, "confidence": 0.95, "seed": 0}
    for k in b:
        if f"boot_cfg.{k}" in ref:
            b[k] = ref[f"boot_cfg.{k}"]
    return b


def boot_samples(log: dict, c: dict, b: dict) -> np.ndarray:
    """Each round: the votes drawn by arena.rng.bootstrap_indices (numpy default_rng(seed).integers(0, n,
    (rounds, n))), refitted, on the rating scale."""
    n = len(log["a"])
    idx = np.random.default_rng(b["seed"]).integers(0, n, size=(b["rounds"], n), dtype=np.int64)
    return np.array([elo(newton(log, c, list(idx[r])), c) for r in range(b["rounds"])])


@check("bootstrap_matches_reference[*]")
def boot_ref(out, ref):
    log, c, b = log_of(ref), cfg_of(ref), boot_cfg(ref)
    close(out["boot"], boot_samples(log, c, b), atol=5e-2, what="bootstrap ratings")


@check("leaderboard_matches_reference[*]")
def board_ref(out, ref):
    log, c, b = log_of(ref), cfg_of(ref), boot_cfg(ref)
    r = elo(newton(log, c), c)
    s = boot_samples(log, c, b)
    lo = np.quantile(s, (1 - b["confidence"]) / 2, axis=0)
    hi = np.quantile(s, (1 + b["confidence"]) / 2, axis=0)
    rk = ranks(lo, hi)
    counts = np.bincount(log["a"], minlength=log["m"]) + np.bincount(log["b"], minlength=log["m"])
    order = sorted(range(log["m"]), key=lambda i: -r[i])
    for pos, i in enumerate(order):
        p = f"rows.{pos}."
        equal(out[p + "model"], f"m{i}", what=p + "model")
        close(out[p + "rating"], r[i], atol=5e-2, what=p + "rating")
        close(out[p + "ci_low"], lo[i], atol=5e-2, what=p + "ci_low")
        close(out[p + "ci_high"], hi[i], atol=5e-2, what=p + "ci_high")
        equal(out[p + "rank"], rk[i], what=p + "rank")
        equal(out[p + "n_votes"], int(counts[i]), what=p + "n_votes")
    close(out["win_rate"], win_rate(r, c), atol=1e-4, what="win_rate")
