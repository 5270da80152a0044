"""Trusted checks for rouge-score/1: hand-computed values from the paper's definitions, and the bootstrap bounds
judged statistically (any correct resampling passes; the probe compares them with the reference's only where
every draw gives the same mean)."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm

from lmrbench.checks import check, close, expect


@check("summary_lcs_scores[0]")
def papers_union_lcs_example(out, ref):
    # r = w1..w5; c1 = w1 w2 w6 w7 w8, c2 = w1 w3 w8 w9 w5: union LCS = w1 w2 w3 w5 (4 of 5 reference tokens)
    # over 10 candidate tokens: R = 4/5, P = 4/10, F = 2 P R / (P + R) = 0.64 / 1.2
    for where in ("alone", "mixed"):
        close(out[f"{where}.rougeLsum.r"], 0.8, rtol=0, atol=1e-12, what=f"{where}: recall")
        close(out[f"{where}.rougeLsum.p"], 0.4, rtol=0, atol=1e-12, what=f"{where}: precision")
        close(out[f"{where}.rougeLsum.f"], 0.64 / 1.2, rtol=0, atol=1e-12, what=f"{where}: F")


@check("ngram_scores[0]")
def clipped_unigrams_and_bigrams(out, ref):
    # "the cat sat on the mat" / "the cat sat on a mat": unigrams match the (min(2, 1)), cat, sat, on, mat = 5 of 6
    # each; bigrams "the cat", "cat sat", "sat on" = 3 of 5 each
    close(out["rouge1.r"], 5 / 6, rtol=0, atol=1e-12, what="rouge1 recall")
    close(out["rouge1.p"], 5 / 6, rtol=0, atol=1e-12, what="rouge1 precision")
    close(out["rouge2.f"], 0.6, rtol=0, atol=1e-12, what="rouge2 F")


@check("ngram_scores[1]")
def clipping(out, ref):
    # target "the the the the cat", prediction "the the cat cat cat the": the: min(4, 3) = 3, cat: min(1, 3) = 1
    close(out["rouge1.r"], 4 / 5, rtol=0, atol=1e-12, what="recall over 5 target unigrams")
    close(out["rouge1.p"], 4 / 6, rtol=0, atol=1e-12, what="precision over 6 prediction unigrams")


@check("lcs_scores[0]")
def sentence_lcs(out, ref):
    # "police killed the gunman" / "police kill the gunman": LCS = police the gunman (3 of 4 on each side)
    close(out["rougeL.r"], 0.75, rtol=0, atol=1e-12, what="recall")
    close(out["rougeL.p"], 0.75, rtol=0, atol=1e-12, what="precision")


@check("lcs_scores[1]")
def word_order_matters_for_lcs(out, ref):
    # "the gunman kill police": LCS with "police killed the gunman" is "the gunman" (2 of 4)
    close(out["rougeL.r"], 0.5, rtol=0, atol=1e-12, what="recall")


@check("score_multi_takes_the_best_reference")
def best_reference(out, ref):
    # prediction "the cat sat on the mat" (6 tokens). rouge1: "the cat was on the mat" matches 5 (R 5/6, P 5/6,
    # F 0.833); "a cat sat on the mat today" 5 (R 5/7, P 5/6, F 0.769); "cat mat" 2 (R 1, P 1/3, F 0.5): the first.
    # rouge2: the first matches 3 of 5 bigrams (F 0.6), the second 4 (R 4/6, P 4/5, F 0.727): the second.
    close(out["multi.rouge1.r"], 5 / 6, rtol=0, atol=1e-12, what="rouge1 recall of the best reference")
    close(out["multi.rouge1.p"], 5 / 6, rtol=0, atol=1e-12, what="rouge1 precision of the best reference")
    close(out["multi.rouge2.r"], 4 / 6, rtol=0, atol=1e-12, what="rouge2 recall of the best reference")
    close(out["multi.rouge2.p"], 4 / 5, rtol=0, atol=1e-12, what="rouge2 precision of the best reference")


def _matrix(seed: int, n: int) -> dict[str, np.ndarray]:
    """The probe's score matrix (precision, recall, F) per type, rebuilt here from the same seed."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list[list[float]]] = {"rouge1": [], "rougeL": []}
    for _ in range(n):
        p, r = rng.uniform(0.05, 1.0, size=2)
        for name, pp in (("rouge1", p), ("rougeL", p / 2)):
            rows[name].append([pp, r, 2 * pp * r / (pp + r)])
    return {k: np.array(v) for k, v in rows.items()}


@check("bootstrap_intervals[*]")
def bounds_are_percentiles_of_resampled_means(out, ref):
    seed, n, confidence = _which(out, ref)
    for name, matrix in _matrix(seed, n).items():
        mean = matrix.mean(axis=0)
        for j, part in enumerate(("p", "r", "f")):
            low, mid, high = (float(out[f"{name}.{b}.{part}"]) for b in ("low", "mid", "high"))
            expect(matrix[:, j].min() - 1e-12 <= low <= mid <= high <= matrix[:, j].max() + 1e-12,
                   f"{name} {part}: low <= mid <= high within the scores' range (got {low}, {mid}, {high})")
            if n < 40:
                continue
            se = matrix[:, j].std() / np.sqrt(n)  # the spread of a resampled mean
            z = norm.ppf(1 - (1 - confidence) / 2)
            # mid: the mean (the paper), or the middle of the resampled means (within Monte-Carlo noise of it)
            for got, want, which in ((low, mean[j] - z * se, "low"), (mid, mean[j], "mid"),
                                     (high, mean[j] + z * se, "high")):
                expect(abs(got - want) <= 0.2 * se, f"{name} {part}: {which} bound {got:.5f} is not the "
                       f"{confidence:.0%} interval's ({want:.5f} +- {0.2 * se:.5f})")


def _which(out, ref) -> tuple[int, int, float]:
    """The case's parameters: the case whose rouge1 mean precision is nearest the reference's point estimate (the
    three cases' means are far apart; the estimate is within Monte-Carlo noise of its own)."""
    cases = ((0, 40, 0.95), (1, 200, 0.9), (2, 3, 0.5))
    dist = [abs(_matrix(seed, n)["rouge1"].mean(axis=0)[0] - float(ref["rouge1.mid.p"])) for seed, n, _ in cases]
    return cases[int(np.argmin(dist))]


@check("bootstrap_constant_scores")
def constant_scores_have_a_point_interval(out, ref):
    for b in ("low", "mid", "high"):
        close(out[f"rouge1.{b}.p"], 0.25, rtol=0, atol=1e-12, what=f"{b} precision")
        close(out[f"rouge1.{b}.r"], 0.5, rtol=0, atol=1e-12, what=f"{b} recall")


@check("csv_through_io[1]")
def aggregated_csv_is_ordered(out, ref):
    names = sorted({key.split(".")[1] for key in ref if key.startswith("csv.") and key.endswith(".low")})
    expect(len(names) == 9, f"three rouge types times P, R and F rows, got {names}")
    for name in names:
        low, mid, high = (float(out[f"csv.{name}.{b}"]) for b in ("low", "mid", "high"))
        expect(0 <= low <= mid <= high <= 1, f"{name}: low <= mid <= high in [0, 1] (got {low}, {mid}, {high})")
