"""Trusted checks for lc-alpacaeval/1 (never enter the sandbox): hand-checked values and the paper's properties,
on the outputs probe_lcae.py emitted. The default comparison with the reference's outputs has already passed.
Parameters and echoed data of a case are read from `ref` (the reference's run), never from `out`."""
from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

GRAD = 1e-7  # stationarity: largest gradient entry allowed at a returned optimum (the fits' tol is 1e-8)
RATE = dict(rtol=0.0, atol=2e-5)  # win rates, in percent (see NOTES.md)
COEF = dict(rtol=1e-5, atol=5e-6)  # two fitted coefficients that should agree (see NOTES.md)


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-np.asarray(z, dtype=np.float64)))


def seq(d: dict, key: str) -> list:
    """A list output, as the probe runner flattens it (key.0, key.1, ...)."""
    kind, n = d[key]
    if kind != "seq":
        raise AssertionError(f"{key} is not a list")
    return [d[f"{key}.{i}"] for i in range(n)]


def glm_gradient(features, targets, l2, coef) -> np.ndarray:
    """Gradient of mean cross-entropy + 0.5 sum l2 w^2 (GLMConfig / fit_logistic's objective)."""
    x, t, lam, w = (np.asarray(v, dtype=np.float64) for v in (features, targets, l2, coef))
    return x.T @ (sigmoid(x @ w) - t) / len(t) + lam * w


# ---------------------------------------------------------------- model_vs_baseline


@check("comparison_matches_reference[*]")
def comparison_is_well_formed(out, ref):
    ids = seq(out, "instructions")
    equal(ids, sorted(ids), what="instructions sorted ascending")
    expect(len(set(ids)) == len(ids), "one entry per instruction")
    p = np.asarray(out["win_prob"])
    expect(bool(np.all((p >= 0) & (p <= 1))), "win probabilities in [0, 1]")
    equal(out["win_prob#dtype"], "float64", what="win_prob dtype")


@check("comparison_matches_reference[hand-hm-hb]")
def comparison_hand(out, ref):
    # hand table (make_fixtures.hand_table): model 'hm' shown second on x1 (pref 1.0 -> 0) and x2 (2.0 -> 1),
    # first on x3 (1.5 -> 0.5) and x4 (1.25 -> 2 - 1.25 = 0.75); lengths (model, baseline) per instruction
    equal(seq(out, "instructions"), ["x1", "x2", "x3", "x4"], what="instructions")
    close(out["win_prob"], [0.0, 1.0, 0.5, 0.75], rtol=0, atol=1e-15, what="win probabilities")
    equal(np.asarray(out["model_len"]).tolist(), [3, 6, 9, 8], what="len(z_m)")
    equal(np.asarray(out["baseline_len"]).tolist(), [5, 6, 7, 4], what="len(z_b)")


@check("comparison_matches_reference[hand-hb-hm]")
def comparison_hand_swapped(out, ref):
    # the same table seen from 'hb': probabilities 1 - (0, 1, 0.5, 0.75), lengths exchanged
    close(out["win_prob"], [1.0, 0.0, 0.5, 0.25], rtol=0, atol=1e-15, what="win probabilities")
    equal(np.asarray(out["model_len"]).tolist(), [5, 6, 7, 4], what="len(z_m)")


# ---------------------------------------------------------------- glm_features


@check("features_match_reference[*]")
def features_are_eq2(out, ref):
    delta, gamma = np.asarray(ref["delta"]), np.asarray(ref["gamma"])
    want = np.stack([np.ones_like(delta), np.tanh(delta / np.std(delta, ddof=ref["ddof"])), gamma], axis=1)
    close(out["features"], want, rtol=1e-12, atol=1e-12, what="columns (1, tanh(standardised len diff), gamma_x)")


@check("features_match_reference[hand-hm-hb-hand-1]")
def features_hand(out, ref):
    # differences -2, 0, 2, 4: mean 1, squared deviations 9 + 1 + 1 + 9 = 20, std (ddof 1) = sqrt(20/3)
    s = math.sqrt(20.0 / 3.0)
    want = [[1.0, math.tanh(-2 / s), 0.5], [1.0, 0.0, -1.0], [1.0, math.tanh(2 / s), 0.0], [1.0, math.tanh(4 / s), 2.0]]
    close(out["features"], want, rtol=1e-12, atol=1e-14, what="hand features (ddof 1)")


@check("features_match_reference[hand-hm-hb-hand-0]")
def features_hand_ddof0(out, ref):
    s = math.sqrt(20.0 / 4.0)  # ddof 0: std = sqrt(20/4) = sqrt(5)
    close(np.asarray(out["features"])[:, 1], [math.tanh(-2 / s), 0.0, math.tanh(2 / s), math.tanh(4 / s)],
          rtol=1e-12, atol=1e-14, what="hand length feature (ddof 0)")


# ---------------------------------------------------------------- fit_logistic


@check("logistic_matches_reference[*]")
def logistic_is_stationary(out, ref):
    g = glm_gradient(ref["features"], ref["targets"], ref["l2"], out["coef"])
    expect(float(np.max(np.abs(g))) < GRAD, f"gradient at the returned coefficients is {np.max(np.abs(g)):.2e}")


@check("logistic_constant_feature")
def logistic_constant(out, ref):
    # one constant feature, no penalty: sigmoid(w) = mean(t) = 3.4 / 5 = 0.68, w = log(0.68 / 0.32)
    close(out["unpenalised"], [math.log(0.68 / 0.32)], rtol=1e-6, atol=1e-6, what="logit of the mean target")
    # with l2 = 0.2: sigmoid(w) - 0.68 + 0.2 w = 0
    w = float(np.asarray(out["penalised"])[0])
    close(sigmoid(w) - 0.68 + 0.2 * w, 0.0, rtol=0, atol=2e-8, what="penalised stationarity")
    expect(0.0 < w < math.log(0.68 / 0.32), "the penalty shrinks the coefficient toward 0")
    close(out["symmetric"], [0.0], rtol=0, atol=1e-9, what="mean target 1/2 gives 0")


# ---------------------------------------------------------------- fit_instruction_difficulty


def _theta_given_gamma(p: np.ndarray, gamma_rows: np.ndarray) -> float:
    """theta_m solving mean(sigmoid(theta - gamma_x) - p) = 0 (the unpenalised model term), by bisection."""
    lo, hi = -60.0, 60.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.mean(sigmoid(mid - gamma_rows) - p) > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


@check("difficulty_matches_reference[*]")
def difficulty_is_stationary(out, ref):
    ids = seq(out, "instructions")
    equal(ids, sorted(set(seq(ref, "instructions"))), what="instructions, sorted")
    gamma = dict(zip(ids, np.asarray(out["gamma"], dtype=np.float64)))
    models = np.asarray(seq(ref, "rows.model"), dtype=np.int64)
    inst = seq(ref, "rows.instruction")
    p = np.asarray(seq(ref, "rows.p"), dtype=np.float64)
    g_rows = np.array([gamma[x] for x in inst])
    theta = np.array([_theta_given_gamma(p[models == m], g_rows[models == m]) for m in range(models.max() + 1)])
    resid = sigmoid(theta[models] - g_rows) - p  # d CE / d logit
    grad = {x: 0.0 for x in ids}
    for x, r in zip(inst, resid):
        grad[x] -= r / len(p)  # d logit / d gamma_x = -1
    worst = max(abs(grad[x] + ref["l2"] * gamma[x]) for x in ids)
    expect(worst < GRAD, f"joint objective's gradient in gamma is {worst:.2e} (DifficultyConfig)")


@check("difficulty_ignores_model_order")
def difficulty_order(out, ref):
    close(out["given"], out["permuted"], **COEF, what="models in another order")
    close(out["given"], out["all"], **COEF, what="models=None (every model)")


# ---------------------------------------------------------------- length_controlled_winrate


@check("lc_matches_reference[*]")
def lc_is_eq3(out, ref):
    p, gamma = np.asarray(ref["win_prob"]), np.asarray(ref["gamma"])
    equal(out["n"], len(p), what="n")
    close(out["win_rate"], 100.0 * p.mean(), rtol=1e-12, atol=1e-10, what="raw win rate, Eq. (1)")
    coef = np.array([out["theta"], out["phi"], out["psi"]])
    g = glm_gradient(ref["features"], p, seq(ref, "l2"), coef)
    expect(float(np.max(np.abs(g))) < GRAD, f"GLM gradient at (theta, phi, psi) is {np.max(np.abs(g)):.2e}")
    want = 100.0 * float(np.mean(sigmoid(coef[0] + coef[2] * gamma)))
    close(out["lc_win_rate"], want, rtol=1e-10, atol=1e-9, what="Eq. (3) from the fitted coefficients")
    expect(0.0 <= out["lc_win_rate"] <= 100.0, "LC win rate in [0, 100]")


@check("lc_matches_reference[2-t1-gamma]")
def lc_zero_difficulty(out, ref):
    # gamma_x = 0 everywhere: Eq. (3) is 100 * logistic(theta)
    close(out["lc_win_rate"], 100.0 * float(sigmoid(out["theta"])), rtol=1e-10, atol=1e-9, what="100 sigmoid(theta)")


@check("lc_matches_reference[6-hand-hm]")
def lc_hand(out, ref):
    # win probabilities 0, 1, 0.5, 0.75: raw win rate 100 * 2.25 / 4 = 56.25
    close(out["win_rate"], 56.25, rtol=0, atol=1e-10, what="raw win rate")
    equal(out["n"], 4, what="n")


@check("lc_identity[*]")
def lc_identity(out, ref):
    equal(out["n"], 0, what="n (nothing fitted)")
    close([out["win_rate"], out["lc_win_rate"], out["theta"], out["phi"], out["psi"]], [50.0, 50.0, 0.0, 0.0, 0.0],
          rtol=0, atol=0, what="identity")


@check("lc_symmetry[*]")
def lc_symmetry(out, ref):
    close(out["forward.lc_win_rate"] + out["backward.lc_win_rate"], 100.0, **RATE, what="LC symmetry")
    close(out["forward.win_rate"] + out["backward.win_rate"], 100.0, **RATE, what="raw symmetry")
    close([out["backward.theta"], out["backward.phi"], out["backward.psi"]],
          [-out["forward.theta"], out["forward.phi"], -out["forward.psi"]], **COEF,
          what="(theta, phi, psi) -> (-theta, phi, -psi)")


@check("lc_length_scale_invariance[*]")
def lc_scale(out, ref):
    for key in ("win_rate", "lc_win_rate"):
        close(out[f"scaled.{key}"], out[f"base.{key}"], **RATE, what=f"{key}, lengths doubled")
    for key in ("theta", "phi", "psi"):
        close(out[f"scaled.{key}"], out[f"base.{key}"], **COEF, what=f"{key}, lengths doubled")


@check("leaderboard_end_to_end[*]")
def leaderboard_rows(out, ref):
    lc = np.asarray(out["lc_win_rate"])
    finite(lc)
    expect(bool(np.all(np.diff(lc) <= 1e-9)), "sorted by LC win rate, best first")
    models = seq(out, "model")
    b = models.index("baseline")
    close([lc[b], np.asarray(out["win_rate"])[b]], [50.0, 50.0], rtol=0, atol=0, what="baseline row")
