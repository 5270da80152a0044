"""Trusted checks for dola/1 (never enter the sandbox): hand-checked values and the paper's properties, on the
outputs probe_dola_step.py emitted. The default comparison with the reference's outputs has already passed."""

from __future__ import annotations

import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

ATOL, RTOL = 1e-9, 1e-7
LN2 = math.log(2.0)


def scores_equal(actual, expected, what: str = "scores") -> None:
    """Same shape; finite exactly where `expected` is finite, exactly -inf elsewhere, close where finite."""
    a, e = np.asarray(actual), np.asarray(expected)
    equal(a.shape, e.shape, what=f"{what} shape")
    fin = np.isfinite(e)
    equal(np.isfinite(a), fin, what=f"{what}: the set of finite scores")
    expect(bool(np.all(a[~fin] == -np.inf)), f"{what}: excluded tokens must score exactly -inf")
    close(a[fin], e[fin], rtol=RTOL, atol=ATOL, what=what)


def nonzero(row) -> list[int]:
    return [int(i) for i in np.flatnonzero(row)]


# --------------------------------------------------------------------------- differential


@check("matches_reference*")
def step_shapes_and_types(out, ref):
    batch, n_cand = np.shape(ref["jsd"])
    equal(np.shape(out["jsd"]), (batch, n_cand), what="jsd shape (batch, number of candidates)")
    equal(out["premature_layer#dtype"], "int64", what="premature_layer dtype")
    equal(out["plausible#dtype"], "bool", what="plausible dtype")
    equal(out["scores#dtype"], ref["scores#dtype"], what="scores dtype")
    scores_equal(out["scores"], ref["scores"])


@check("matches_reference*")
def extreme_logits_stay_finite(out, ref):
    # The last two fixture cases have logit gaps of hundreds of nats (probabilities underflow to 0); the
    # JSD lies in [0, ln 2] for any pair of distributions, so the bounds hold for every case.
    jsd = np.asarray(out["jsd"])
    finite(jsd, "jsd")
    finite(np.asarray(out["scores"])[np.asarray(out["plausible"], dtype=bool)], "scores on the plausible set")
    expect(bool(np.all(jsd >= -1e-12) and np.all(jsd <= LN2 + 1e-12)), "jsd outside [0, ln 2]")


# --------------------------------------------------------------------------- by hand


@check("hand_computed_step")
def hand_computed_step(out, ref):
    # Mature layer 4: q_N = [0.5, 0.4, 0.1]. Row 0: layer 1 has q = [0.6, 0.1, 0.3], layer 3 equals q_N.
    # Row 1: the two candidates swap roles. alpha = 0.25 -> threshold 0.25 * 0.5 = 0.125 keeps tokens 0, 1.
    # JSD(q_N, q): m = [0.55, 0.25, 0.2];
    #   KL(q_N||m) = .5 ln(.5/.55) + .4 ln(.4/.25) + .1 ln(.1/.2) = 0.0710317...
    #   KL(q||m)   = .6 ln(.6/.55) + .1 ln(.1/.25) + .3 ln(.3/.2) = 0.0822172...
    #   JSD = (0.0710317 + 0.0822172) / 2 = 0.07662446458947444;  JSD(q_N, q_N) = 0.
    # Scores on the kept tokens: ln(.5/.6) = -0.1823215567939546, ln(.4/.1) = ln 4 = 1.3862943611198906.
    jsd_pq = 0.07662446458947444
    close(out["jsd"], [[jsd_pq, 0.0], [0.0, jsd_pq]], atol=1e-12, rtol=1e-10, what="jsd")
    equal(out["premature_layer"].tolist(), [1, 3], what="premature_layer")
    equal(out["plausible"].tolist(), [[True, True, False], [True, True, False]], what="plausible")
    expected = [-0.1823215567939546, 1.3862943611198906, -math.inf]
    scores_equal(out["scores"], [expected, expected])
    # Greedy decoding would emit token 0; DoLa emits token 1.
    equal(out["argmax"].tolist(), [1, 1], what="argmax of the scores")


@check("disjoint_supports_give_ln2")
def disjoint_supports(out, ref):
    # One-hot-like distributions on different tokens: JSD = ln 2 (its maximum); same token: JSD = 0.
    close(out["jsd"], [[LN2, 0.0]], atol=1e-12, rtol=0, what="jsd")
    equal(out["premature_layer"].tolist(), [0], what="premature_layer")
    equal(out["plausible"].tolist(), [[True, False, False]], what="plausible")
    # log q_N(0) - log q_0(0) = 0 - (-1000) = 1000.
    close(out["scores"][0, 0], 1000.0, atol=1e-9, rtol=0, what="score of token 0")


@check("threshold_is_relative_to_the_mature_maximum")
def threshold(out, ref):
    # q_N = softmax(log[8, 4, 2, 1]) = [8, 4, 2, 1] / 15; alpha = 0.3 keeps q >= 0.3 * 8/15 -> tokens 0, 1.
    # (alpha = 0.3 on the raw probabilities, or on the premature layer, would keep a different set.)
    equal(out["plausible"].tolist(), [[True, True, False, False]], what="plausible")
    # Scores: ln(8/15) - ln(1/23) = ln(184/15), ln(4/15) - ln(1/23) = ln(92/15).
    scores_equal(out["scores"], [[math.log(184 / 15), math.log(92 / 15), -math.inf, -math.inf]])


# --------------------------------------------------------------------------- properties


@check("invariant_to_per_row_logit_shifts")
def shift_invariance(out, ref):
    equal(out["a.premature_layer"], out["b.premature_layer"], what="premature_layer")
    equal(out["a.plausible"], out["b.plausible"], what="plausible")
    close(out["b.jsd"], out["a.jsd"], atol=1e-9, rtol=1e-7, what="jsd")
    scores_equal(out["b.scores"], out["a.scores"])


@check("alpha_one_keeps_only_the_maximisers")
def alpha_one(out, ref):
    top = ref["mature_argmax"]  # argmax of the mature logits: computed from the inputs by the reference run
    plausible = out["plausible"]
    equal(nonzero(plausible[0]), [2, 4], what="row 0 (two tied maximisers)")
    for b in range(1, 5):
        equal(nonzero(plausible[b]), [int(top[b])], what=f"row {b}")
    equal(int(np.isfinite(out["scores"]).sum()), 6, what="number of finite scores")


@check("alpha_zero_keeps_every_token")
def alpha_zero(out, ref):
    expect(bool(np.all(out["plausible"])), "alpha = 0 must keep every token")
    finite(out["scores"], "scores")


@check("each_row_selects_its_own_layer")
def own_layer(out, ref):
    equal(out["premature_layer"].tolist(), [0, 1, 2], what="premature_layer")
    contrast = ref["contrast"]  # log_softmax(final) - log_softmax(far), from the reference run
    for r in range(3):
        kept = np.asarray(out["plausible"][r], dtype=bool)
        close(out["scores"][r, kept], contrast[r, kept], atol=1e-10, rtol=1e-8, what=f"row {r}")


@check("candidate_order_only_permutes_jsd")
def candidate_order(out, ref):
    order = [4, 0, 5, 2, 1, 3]
    equal(out["a.premature_layer"], out["b.premature_layer"], what="premature_layer")
    close(out["b.jsd"], out["a.jsd"][:, order], atol=1e-12, rtol=0, what="permuted jsd")
    scores_equal(out["b.scores"], out["a.scores"])


@check("exact_tie_goes_to_first_listed_candidate")
def exact_tie(out, ref):
    equal(out["premature_first_1"].tolist(), [1, 1, 1], what="candidates [1, 0, 3]")
    equal(out["premature_first_3"].tolist(), [3, 3, 3], what="candidates [3, 0, 1]")


@check("single_candidate_is_static_dola")
def single_candidate(out, ref):
    equal(out["premature_layer"].tolist(), [1, 1, 1, 1], what="premature_layer")
    kept = np.asarray(out["plausible"], dtype=bool)
    close(out["scores"][kept], ref["contrast"][kept], atol=1e-10, rtol=1e-8, what="scores")


@check("jsd_is_symmetric_and_bounded")
def symmetric(out, ref):
    ab, ba = out["ab"], out["ba"]
    close(ab, ba, atol=1e-12, rtol=1e-10, what="JSD(p, q) vs JSD(q, p)")
    expect(bool(np.all(ab > 0) and np.all(ab < LN2)), "jsd not strictly inside (0, ln 2)")


@check("float32_input_keeps_dtype")
def float32(out, ref):
    equal(out["scores_dtype"], "torch.float32", what="scores dtype")
    equal(out["jsd#dtype"], "float32", what="jsd dtype")
    equal(out["premature_layer"], ref["premature_layer_f64"], what="premature_layer vs the float64 run")
    close(out["jsd"], ref["jsd_f64"], atol=1e-5, rtol=1e-4, what="jsd vs the float64 run")


# --------------------------------------------------------------------------- decoding


@check("alpha_one_reduces_to_greedy_decoding")
def alpha_one_greedy(out, ref):
    equal(out["dola"], ref["greedy"], what="DoLa tokens at alpha = 1 vs greedy decoding")
