"""Trusted checks for error-bars/1 (never enter the sandbox): every output recomputed from the equations of
paper.md, written literally (Eq. (5) as the double sum over pairs of a cluster), plus hand-checked values. The
default comparison with the reference has already passed, except for the variance components (within_var,
between_var, omega2, sigma2_*), whose estimator paper.md leaves open: the checks accept each reading (divisor
K_i - 1 or K_i within a question, n - 1 or n across questions, and for unequal K_i the mean of sigma_i^2 / K_i or
the mean sigma_i^2 over the mean K). Parameters of a case are read from `ref`, never from `out`."""
from __future__ import annotations

import math
import re
from itertools import product
from statistics import NormalDist

import numpy as np

from lmrbench.checks import check, close, equal, expect

TOL = dict(rtol=1e-10, atol=1e-13)
Z = NormalDist()


def inputs(ref: dict, prefix: str) -> dict:
    """A table's inputs from the reference's outputs (keys flattened as `prefix.name`)."""
    codes = None
    if f"{prefix}.codes.0" in ref:
        codes, i = [], 0
        while f"{prefix}.codes.{i}" in ref:
            codes.append(ref[f"{prefix}.codes.{i}"])
            i += 1
    ids, i = [], 0
    while f"{prefix}.ids.{i}" in ref:
        ids.append(ref[f"{prefix}.ids.{i}"])
        i += 1
    return {"scores": np.asarray(ref[f"{prefix}.scores"], dtype=np.float64),
            "counts": np.asarray(ref[f"{prefix}.counts"]), "codes": codes, "ids": ids,
            "kind": ref.get(f"{prefix}.kind", "sampled")}


def question_values(t: dict) -> np.ndarray:
    """Eq. (7): the mean of each question's own answers."""
    return np.array([t["scores"][i, :k].mean() for i, k in enumerate(t["counts"])])


def var(x: np.ndarray, ddof: int = 1) -> float:
    return float(((x - x.mean()) ** 2).sum() / (x.size - ddof))


def se_clt(v: np.ndarray) -> float:
    """Eq. (3)."""
    return math.sqrt(var(v) / v.size)


def se_clustered(v: np.ndarray, codes: list) -> float:
    """Eq. (5), the double sum over distinct pairs of a cluster written out."""
    n, r = v.size, v - v.mean()
    extra = sum(r[i] * r[j] for i in range(n) for j in range(n) if i != j and codes[i] == codes[j])
    return math.sqrt(se_clt(v) ** 2 + extra / n**2)


def half_width(se: float, confidence: float) -> float:
    """Eq. (4): z_{alpha/2} * SE with 1 - alpha = confidence."""
    return Z.inv_cdf(0.5 + confidence / 2) * se


def sigma2_readings(t: dict) -> list[tuple[int, np.ndarray]]:
    """(divisor offset, per-question sigma_i^2) for each within-question reading."""
    return [(d, np.array([var(t["scores"][i, :k], d) if k > d else math.nan for i, k in enumerate(t["counts"])]))
            for d in (1, 0)]


def noise_readings(sig: np.ndarray, counts: np.ndarray) -> list[float]:
    """E[sigma_i^2] / K of Eq. (8) when K varies by question: mean of sigma_i^2 / K_i, or mean over mean."""
    return [float((sig / counts).mean()), float(sig.mean() / counts.mean())]


def check_components(out: dict, t: dict, p: str = "") -> None:
    """within_var and between_var: Eqs. (6)-(9), under any reading of the estimators."""
    within, between = out[f"{p}within_var"], out[f"{p}between_var"]
    v = question_values(t)
    if t["kind"] == "probability":  # Eq. (9): no conditional variance
        close(within, 0.0, rtol=0, atol=0, what="within_var of next-token probabilities")
        expect(any(abs(between - var(v, o)) <= 1e-13 + 1e-10 * abs(between) for o in (1, 0)),
               f"between_var {between} is not Var(p_i) (Eq. (9))")
        return
    if int(t["counts"].min()) < 2:
        expect(math.isnan(within) and math.isnan(between), "within/between must be NaN with a single answer")
        return
    ok = False
    for (_, sig), outer in product(sigma2_readings(t), (1, 0)):
        for noise in noise_readings(sig, t["counts"]):
            w, b = float(sig.mean()), var(v, outer) - noise
            ok |= abs(within - w) <= 1e-13 + 1e-10 * abs(w) and abs(between - b) <= 1e-13 + 1e-10 * abs(b)
    expect(ok, f"within_var {within}, between_var {between} match no reading of Eqs. (6)-(8)")


def expected_summary(t: dict, confidence: float, cluster_se: bool) -> dict:
    v = question_values(t)
    mean, clt = float(v.mean()), se_clt(v)
    se = se_clustered(v, t["codes"]) if cluster_se and t["codes"] is not None else clt
    h = half_width(se, confidence)
    return {"n_questions": v.size, "n_clusters": None if t["codes"] is None else len(set(t["codes"])),
            "mean": mean, "se": se, "se_clt": clt, "ci_low": mean - h, "ci_high": mean + h}


def check_summary(out: dict, t: dict, confidence: float, cluster_se: bool, p: str = "") -> dict:
    want = expected_summary(t, confidence, cluster_se)
    for key, value in want.items():
        if isinstance(value, float):
            close(out[f"{p}{key}"], value, **TOL, what=f"{p}{key}")
        else:
            equal(out[f"{p}{key}"], value, what=f"{p}{key}")
    check_components(out, t, p)
    return want


def aligned(a: dict, b: dict) -> tuple[np.ndarray, np.ndarray, list | None]:
    """Question values of A and of B in A's order, and the cluster codes of whichever table has them."""
    row = {q: i for i, q in enumerate(b["ids"])}
    order = [row[q] for q in a["ids"]]
    codes = a["codes"] if a["codes"] is not None else (None if b["codes"] is None else [b["codes"][i] for i in order])
    return question_values(a), question_values(b)[order], codes


def check_comparison(out: dict, a: dict, b: dict, confidence: float, cluster_se: bool) -> None:
    sa = check_summary(out, a, confidence, cluster_se, "a.")
    sb = check_summary(out, b, confidence, cluster_se, "b.")
    va, vb, codes = aligned(a, b)
    d = va - vb  # Eq. (11)
    se = se_clustered(d, codes) if cluster_se and codes is not None else se_clt(d)  # Eqs. (12), (5)
    diff = float(d.mean())
    ca, cb = va - va.mean(), vb - vb.mean()
    want = {"diff": diff, "se": se, "se_unpaired": math.sqrt(sa["se"] ** 2 + sb["se"] ** 2),  # Eq. (10)
            "correlation": float((ca * cb).sum() / math.sqrt((ca * ca).sum() * (cb * cb).sum())),
            "z": diff / se, "p_value": 2 * (1 - Z.cdf(abs(diff / se))),  # Eq. (13)
            "ci_low": diff - half_width(se, confidence), "ci_high": diff + half_width(se, confidence)}
    for key, value in want.items():
        close(out[f"comparison.{key}"], value, **TOL, what=key)
    equal(out["comparison.n_questions"], va.size, what="n_questions")
    if codes is None:  # Eq. (12), second form: SE_A^2 + SE_B^2 - 2 Cov / n
        cov = float((ca * cb).sum() / (va.size - 1))
        close(out["comparison.se"] ** 2, se_clt(va) ** 2 + se_clt(vb) ** 2 - 2 * cov / va.size, **TOL,
              what="Eq. (12) covariance form")


def planned_n(effect, omega2, s2a, s2b, alpha, power, k_a, k_b) -> int:
    """Eq. (15), rounded up to whole questions."""
    z = Z.inv_cdf(1 - alpha / 2) + Z.inv_cdf(power)
    return max(1, math.ceil(z**2 * (omega2 + s2a / k_a + s2b / k_b) / effect**2))


def pilot_readings(a: dict, b: dict) -> list[tuple[float, float, float]]:
    """(omega2, sigma2_a, sigma2_b) under each reading: Eq. (14) solved for omega2 (floored at 0)."""
    va, vb, _ = aligned(a, b)
    row = {q: i for i, q in enumerate(b["ids"])}
    order = [row[q] for q in a["ids"]]
    parts = []
    for t, rows in ((a, list(range(va.size))), (b, order)):
        if t["kind"] == "probability":
            parts.append([(0.0, 0.0)])
            continue
        counts = t["counts"][rows]
        parts.append([(float(sig[rows].mean()), noise) for _, sig in sigma2_readings(t)
                      for noise in noise_readings(sig[rows], counts)])
    out = []
    for outer, (s2a, na), (s2b, nb) in product((1, 0), parts[0], parts[1]):
        out.append((max(0.0, var(va - vb, outer) - na - nb), s2a, s2b))
    return out


def close_to(x: float, y: float) -> bool:
    return abs(x - y) <= 1e-13 + 1e-10 * abs(y)


# ---------------------------------------------------------------- unit level


@check("question_scores_hand")
def question_scores_hand(out, ref):
    # Eq. (7) over each question's own answers: (1 + 0 + 1) / 3, 1 / 1, (0.5 + 0.25) / 2
    close(out["scores"], [2 / 3, 1.0, 0.375], **TOL, what="question scores")


@check("summary_hand")
def summary_hand(out, ref):
    # [1, 0, 1, 1]: mean 0.75; deviations 0.25, -0.75, 0.25, 0.25, squares sum 0.75, / (n - 1) = 0.25;
    # SE = sqrt(0.25 / 4) = 0.25; 95% interval 0.75 -+ 1.959963984540054 * 0.25
    close(out["plain.mean"], 0.75, **TOL, what="mean")
    close(out["plain.se"], 0.25, **TOL, what="SE_CLT")
    close([out["plain.ci_low"], out["plain.ci_high"]], [0.2600090038649865, 1.2399909961350135], **TOL,
          what="95% interval")
    expect(math.isnan(out["plain.within_var"]), "one answer per question: within_var must be NaN")
    # [1, 0 | 1, 1 | 0, 0]: mean 0.5, deviations +-0.5, SE_CLT^2 = (6 * 0.25 / 5) / 6 = 0.05; pairs within
    # clusters (both orders): p: 2 * (0.5 * -0.5) = -0.5, q: 2 * 0.25 = 0.5, r: 2 * 0.25 = 0.5; sum 0.5, / 36
    close(out["clustered.se_clt"], math.sqrt(0.05), **TOL, what="SE_CLT")
    close(out["clustered.se"], math.sqrt(0.05 + 0.5 / 36), **TOL, what="Eq. (5) by hand")
    equal(out["clustered.n_clusters"], 3, what="n_clusters")
    close(out["unclustered.se"], math.sqrt(0.05), **TOL, what="cluster_se=False")
    equal(out["unclustered.n_clusters"], 3, what="n_clusters without clustering")


@check("comparison_hand")
def comparison_hand(out, ref):
    # A = [1, 1, 0, 0], B aligned by question id = [1, 0, 0, 0]; d = [0, 1, 0, 0]: mean 0.25, Var(d) = 0.25,
    # SE = sqrt(0.25 / 4) = 0.25; SE_A^2 = (1 / 3) / 4, SE_B^2 = 0.25 / 4, unpaired sqrt(1/12 + 1/16);
    # correlation 0.5 / sqrt(1 * 0.75) = 1 / sqrt(3); z = 1, p = 2 (1 - Phi(1)) = 0.31731050786291415
    close(out["diff"], 0.25, **TOL, what="diff")
    close(out["se"], 0.25, **TOL, what="paired SE")
    close(out["se_unpaired"], math.sqrt(1 / 12 + 1 / 16), **TOL, what="unpaired SE")
    close(out["correlation"], 1 / math.sqrt(3), **TOL, what="correlation")
    close(out["z"], 1.0, **TOL, what="z")
    close(out["p_value"], 0.31731050786291415, rtol=1e-9, what="p-value")
    equal([out["name_a"], out["name_b"], out["n_questions"]], ["A", "B", 4], what="names")


@check("degenerate_comparison")
def degenerate_comparison(out, ref):
    # B scores 0 everywhere: correlation undefined (NaN, field doc); d = A = [1, 0, 1], mean 2/3,
    # Var(d) = (1/9 + 4/9 + 1/9) / 2 = 1/3, SE = sqrt(1/9) = 1/3, z = 2
    expect(math.isnan(out["flat.correlation"]), "correlation with constant scores must be NaN")
    close([out["flat.diff"], out["flat.se"], out["flat.z"]], [2 / 3, 1 / 3, 2.0], **TOL, what="constant B")
    # the same scores (rows in another order): d = 0, SE 0, z and p NaN (field doc), correlation 1
    close([out["same.diff"], out["same.se"], out["same.correlation"]], [0.0, 0.0, 1.0], **TOL, what="A vs A")
    expect(math.isnan(out["same.z"]) and math.isnan(out["same.p_value"]), "z and p must be NaN when se is 0")


@check("sample_size_hand")
def sample_size_hand(out, ref):
    # Eq. (15): (1.959963984540054 + 0.8416212335729143)^2 = 7.848879734349..., * (0.1 + 0.2 + 0.2) / 0.05^2
    # = 1569.78 -> 1570 questions; with K = 4: * (0.1 + 0.05 + 0.05) / 0.0025 = 627.91 -> 628
    equal(out["n"], 1570, what="n")
    equal(out["n_k4"], 628, what="n with K = 4")


@check("sample_size_matches_reference[*]")
def sample_size_is_eq15(out, ref):
    keys = ("effect", "omega2", "sigma2_a", "sigma2_b", "alpha", "power", "k_a", "k_b")
    equal(out["n"], planned_n(*(ref[k] for k in keys)), what="Eq. (15)")


def mde(n, omega2, s2a, s2b, alpha, power, k_a, k_b) -> float:
    """Eq. (15) solved for delta."""
    z = Z.inv_cdf(1 - alpha / 2) + Z.inv_cdf(power)
    return z * math.sqrt((omega2 + s2a / k_a + s2b / k_b) / n)


@check("detectable_effect_hand")
def detectable_effect_hand(out, ref):
    # Eq. (15) for delta: 2.801585218112968 * sqrt(0.5 / 1570) = 0.04999...; K = 4: sqrt(0.2 / 628)
    close(out["mde"], 2.801585218112968 * math.sqrt(0.5 / 1570), rtol=1e-12, what="delta, K = 1")
    close(out["mde_k4"], 2.801585218112968 * math.sqrt(0.2 / 628), rtol=1e-12, what="delta, K = 4")
    expect(out["mde"] <= 0.05 < 2.801585218112968 * math.sqrt(0.5 / 1569), "1570 questions detect 0.05")
    # alpha = 0.1, power 0.5: z_{0.05} + z_{0.5} = 1.6448536269514722 + 0; sqrt(0.25 / 1) = 0.5
    close(out["mde_one"], 1.6448536269514722 * 0.5, rtol=1e-12, what="delta, one question")


@check("detectable_effect_matches_reference[*]")
def detectable_effect_is_eq15(out, ref):
    args = [ref[k] for k in ("omega2", "sigma2_a", "sigma2_b", "alpha", "power", "k_a", "k_b")]
    for key, n in (("at_n", ref["n"]), ("below_n", max(1, ref["n"] - 1)), ("at_100", 100)):
        close(out[key], mde(n, *args), **TOL, what=f"Eq. (15) for delta, {key}")
    # the planned number of questions is the smallest that detects the effect
    expect(out["at_n"] <= ref["effect"] * (1 + 1e-12), "sample_size questions detect the effect")
    if ref["n"] > 1:
        expect(out["below_n"] > ref["effect"], "one question fewer does not detect the effect")


# ---------------------------------------------------------------- fixtures


@check("summary_matches_reference[*]")
def summary_is_paper(out, ref):
    check_summary(out, inputs(ref, "inputs"), ref["confidence"], ref["cluster_se"])


@check("comparison_matches_reference[*]")
def comparison_is_paper(out, ref):
    check_comparison(out, inputs(ref, "in_a"), inputs(ref, "in_b"), ref["confidence"], ref["cluster_se"])


@check("pilot_matches_reference[*]")
def pilot_is_paper(out, ref):
    for k in ("effect", "alpha", "power", "k_a", "k_b"):
        equal(out[k], ref[f"asked.{k}"], what=k)
    got = (out["omega2"], out["sigma2_a"], out["sigma2_b"])
    ok = any(all(close_to(g, w) for g, w in zip(got, want))
             for want in pilot_readings(inputs(ref, "in_a"), inputs(ref, "in_b")))
    expect(ok, f"(omega2, sigma2_a, sigma2_b) = {got} match no reading of Eq. (14)")
    equal(out["n_planned"], planned_n(out["effect"], *got, out["alpha"], out["power"], out["k_a"], out["k_b"]),
          what="Eq. (15) on the planned spec")


@check("single_model_report")
def single_model_report(out, ref):
    equal([out["n_models"], out["has_comparison"]], [1, False], what="report of one model")


@check("loaded_from_frame")
def loaded_from_frame(out, ref):
    # A (rows in first-appearance order q2, q1, q3, q4): q2 [1, 1], q1 [0, 1], q3 [1, 0], q4 [0, 0, 1]
    # clusters q2 x, q1 y, q3 x, q4 y; B probabilities in that order: 0.2, 0.9, 0.6, 0.4
    a = {"scores": np.array([[1, 1, 0], [0, 1, 0], [1, 0, 0], [0, 0, 1]], dtype=float),
         "counts": np.array([2, 2, 2, 3]), "codes": [0, 1, 0, 1], "ids": ["q2", "q1", "q3", "q4"], "kind": "sampled"}
    b = {"scores": np.array([[0.2], [0.9], [0.6], [0.4]]), "counts": np.ones(4, dtype=int), "codes": None,
         "ids": ["q2", "q1", "q3", "q4"], "kind": "probability"}
    check_comparison(out, a, b, 0.95, True)


@check("simulated_eval[*]")
def simulated_eval(out, ref):
    check_comparison(out, inputs(ref, "in_a"), inputs(ref, "in_b"), 0.95, True)


@check("report_script")
def report_script(out, ref):
    m = re.fullmatch(r"questions needed to detect 0\.05 \(k = 2\): (\d+)", out["last_line"])
    expect(m is not None, f"unexpected last line {out['last_line']!r}")
    a, b = inputs(ref, "in_a"), inputs(ref, "in_b")
    allowed = {planned_n(0.05, w, s2a, s2b, 0.05, 0.8, 2, 2) for w, s2a, s2b in pilot_readings(a, b)}
    expect(int(m.group(1)) in allowed, f"sample size {m.group(1)} not in {sorted(allowed)}")
    equal(out["lines"], ref["lines"], what="lines of the report")
    m = re.fullmatch(r"minimum detectable effect with (\d+) questions \(k = 2\): ([0-9.]+)", out["mde_line"])
    expect(m is not None, f"unexpected line {out['mde_line']!r}")
    allowed = {f"{mde(int(m.group(1)), w, s2a, s2b, 0.05, 0.8, 2, 2):.4f}" for w, s2a, s2b in pilot_readings(a, b)}
    expect(m.group(2) in allowed, f"detectable effect {m.group(2)} not in {sorted(allowed)}")
