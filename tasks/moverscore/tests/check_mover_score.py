"""Trusted checks for moverscore/1 (never enter the sandbox): the old score criterion, hand-checked values and
the metric's properties, on the outputs probe_mover_score.py emitted. The default comparison with the
reference's outputs has already passed."""

from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect

TOL = dict(rtol=1e-7, atol=1e-8)  # the transport LP is solved to ~1e-10


def scalar(value) -> float:
    """A single emitted value as a float."""
    return float(np.asarray(value, dtype=np.float64).reshape(-1)[0])


def check_score(out, key: str, want: float, rtol: float = TOL["rtol"], atol: float = TOL["atol"]) -> None:
    """A 0-d float64 tensor within math.isclose(rel_tol=rtol, abs_tol=atol) of `want` (the old criterion)."""
    got = out[key]
    expect(isinstance(got, np.ndarray) and got.ndim == 0, f"{key}: mover_score must return a 0-d tensor")
    equal(out.get(f"{key}#dtype"), "float64", what=f"{key}: dtype")
    got, want = scalar(got), scalar(want)
    expect(math.isclose(got, want, rel_tol=rtol, abs_tol=atol), f"{key}: got {got!r}, want {want!r}")


def t64(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64)


# --------------------------------------------------------------------------- n-gram embeddings


@check("ngram_embeddings_by_hand")
def ngram_embeddings_by_hand(out, ref):
    # torch.testing.assert_close's float64 defaults, as the old test used
    tol = dict(rtol=1e-7, atol=1e-7)
    # Words e1 = (1, 0), e2 = (0, 1), e3 = (2, 2) with idf 1, 2, 3.
    # n = 1: each word scaled by its idf: (1, 0), (0, 2), (6, 6); masses 1, 2, 3.
    close(out["n1.vectors"], t64([[1.0, 0.0], [0.0, 2.0], [6.0, 6.0]]), **tol, what="n=1 vectors")
    close(out["n1.mass"], t64([1.0, 2.0, 3.0]), **tol, what="n=1 mass")
    # n = 2: windows (e1, e2), (e2, e3): 1*(1,0) + 2*(0,1) = (1, 2); 2*(0,1) + 3*(2,2) = (6, 8); masses 3, 5.
    close(out["n2.vectors"], t64([[1.0, 2.0], [6.0, 8.0]]), **tol, what="n=2 vectors")
    close(out["n2.mass"], t64([3.0, 5.0]), **tol, what="n=2 mass")
    # n = 3: one window: (1, 0) + (0, 2) + (6, 6) = (7, 8); mass 6. n = 5 > 3 words: the same single n-gram.
    for n in (3, 5):
        close(out[f"n{n}.vectors"], t64([[7.0, 8.0]]), **tol, what=f"n={n} vectors")
        close(out[f"n{n}.mass"], t64([6.0]), **tol, what=f"n={n} mass")


# --------------------------------------------------------------------------- MoverScore: differential


@check("mover_score_matches_reference*")
def mover_score_matches_reference(out, ref):
    check_score(out, "score", ref["score"])
    # scores within bounds (the old test_scores_within_bounds, over the same 40 cases)
    value = scalar(out["score"])
    expect(-1.0 - 1e-9 <= value <= 1.0 + 1e-9, f"score {value!r} outside [-1, 1]")


# --------------------------------------------------------------------------- MoverScore: by hand


@check("unigram_by_hand")
def unigram_by_hand(out, ref):
    # Reference words a = (1, 0), b = (0, 1); hypothesis: one word h = (2, 0), i.e. direction (1, 0).
    # Costs: |a - h| = 0, |b - h| = sqrt(2). All mass (1) of h must come from a and b.
    # idf (1, 1): masses (1/2, 1/2) -> WMD = 1/2 * 0 + 1/2 * sqrt(2); score = 1 - sqrt(2)/2 = 0.29289321881345
    check_score(out, "idf_1_1", 0.29289321881345254)
    # idf (3, 1): masses (3/4, 1/4) -> WMD = sqrt(2) / 4; score = 1 - sqrt(2)/4 = 0.64644660940672627
    check_score(out, "idf_3_1", 0.6464466094067263)


@check("transport_plan_by_hand")
def transport_plan_by_hand(out, ref):
    # Reference a = (1, 0), b = (0, 1) with masses 1/2, 1/2; hypothesis a' = (3, 0) (direction of a) with
    # idf 1 and c = (-1, 0) with idf 3, i.e. masses 1/4 and 3/4.
    # Costs: a-a' 0, a-c 2, b-a' sqrt(2), b-c sqrt(2). The cheapest plan moves a->a' 1/4, a->c 1/4, b->c 1/2:
    # WMD = 1/4 * 2 + 1/2 * sqrt(2) = 0.5 + 0.70710678 -> score = 0.5 - sqrt(2)/2 = -0.20710678118654752
    check_score(out, "score", -0.20710678118654752)


@check("bigram_by_hand")
def bigram_by_hand(out, ref):
    # Reference words (1, 0), (0, 1), (-1, 0) with idf 1, 1, 1: bigrams (1, 1) and (-1, 1), masses 2 and 2 -> 1/2 each;
    # unit directions u = (1, 1)/sqrt(2), v = (-1, 1)/sqrt(2).
    # Hypothesis words (1, 0), (0, 1) with idf 1, 3: one bigram (1, 3), direction w = (1, 3)/sqrt(10), mass 1.
    # |u - w| = sqrt(2 - 2 * 4/sqrt(20)) = 0.45950584109472, |v - w| = sqrt(2 - 2 * 2/sqrt(20)) = 1.05146222423827
    # WMD = (0.45950584109472 + 1.05146222423827) / 2 -> score = 0.24451596733350522
    check_score(out, "bigram", 0.24451596733350522)
    # With unigrams instead, the hypothesis' mass 1/4 at (1, 0) and 3/4 at (0, 1) against 1/3 each at
    # (1, 0), (0, 1), (-1, 0): the plan (1,0)->(1,0) 1/4, (0,1)->(0,1) 1/3, (0,1)->(1,0) 1/12 [sqrt 2],
    # (0,1)->(-1,0) 1/3 [sqrt 2] costs (1/12 + 1/3) * sqrt(2) = 5 sqrt(2) / 12 -> score = 1 - 5 sqrt(2)/12
    check_score(out, "unigram", 1 - 5 * math.sqrt(2) / 12)


@check("opposite_single_words_score_minus_one")
def opposite_single_words_score_minus_one(out, ref):
    # One word each, opposite directions: cost |u - (-u)| = 2, WMD = 2, score = -1.
    check_score(out, "score", -1.0)


# --------------------------------------------------------------------------- properties


@check("identical_sentences_score_one*")
def identical_sentences_score_one(out, ref):
    check_score(out, "score", 1.0)


@check("symmetric_in_reference_and_hypothesis*")
def symmetric_in_reference_and_hypothesis(out, ref):
    # the old test compared the swapped score with the reference's score of the case as given
    check_score(out, "swapped", ref["score"])


@check("invariant_to_idf_scale*")
def invariant_to_idf_scale(out, ref):
    check_score(out, "scaled_idf", ref["score"])


@check("unigram_score_ignores_word_order_and_length*")
def unigram_score_ignores_word_order_and_length(out, ref):
    equal(ref["n_gram"], 1, what="fixture case is a unigram case")
    check_score(out, "reordered", ref["score"])


@check("bigram_score_depends_on_word_order")
def bigram_score_depends_on_word_order(out, ref):
    check_score(out, "unigram", 1.0)
    bigram = scalar(out["bigram"])
    expect(bigram < 0.9, f"bigram score of a reordered sentence is {bigram!r}, not < 0.9")
