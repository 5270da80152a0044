"""Trusted checks for devient/1 (never enter the sandbox): hand-checked values and the properties of the
evaluator loss, on the outputs probe_evaluator_loss.py emitted. The default comparison with the reference's
outputs has already passed; inputs are read from the reference's run (`ref`)."""
import math

import numpy as np

from lmrbench.checks import check, close, equal, expect, finite

TOL = dict(rtol=1e-7, atol=1e-10)  # the old tests' default


@check("matches_reference*")  # not "[*]": fnmatch reads [*] as a character class
def named_tuple(out, ref):
    equal(out["is_evaluator_loss_output"], True, what="returns an EvaluatorLossOutput")


@check("hand_values")
def hand_values(out, ref):
    # Two items of one premise/hypothesis: item 0 a strengthener, item 1 a weakener.
    # scores (2, 0): margin 2, ranking = log(1 + e^-2) = 0.1269280110429725.
    # logits all zero: cross-entropy = log 2 = 0.6931471805599453 for both items.
    # w = 0.9: loss = 0.9 log 2 + 0.1 * 0.1269280110429725 = 0.636525263608248.
    close(out["first.ranking"], 0.1269280110429725, **TOL, what="ranking")
    close(out["first.classification"], 0.6931471805599453, **TOL, what="classification")
    close(out["first.loss"], 0.636525263608248, **TOL, what="loss")
    # scores (-1, 1): the weakener wins, margin -2: ranking = log(1 + e^2) = 2.1269280110429727.
    # logits [[2, 0], [0, 1]]: item 0 (label 1) costs log(1 + e^2), item 1 (label 0) costs
    # log(1 + e); mean = 1.7200948492805974. w = 0.5: loss = 1.923511430161785.
    close(out["second.ranking"], 2.1269280110429727, **TOL, what="ranking (wrong order)")
    close(out["second.classification"], 1.7200948492805974, **TOL, what="classification (wrong order)")
    close(out["second.loss"], 1.923511430161785, **TOL, what="loss (wrong order)")


@check("weight_extremes_and_combination")
def weight_extremes(out, ref):
    close(out["ce_only.loss"], out["ce_only.classification"], **TOL, what="w = 1: loss = classification")
    close(out["rank_only.loss"], out["rank_only.ranking"], **TOL, what="w = 0: loss = ranking")
    close(out["mid.loss"], 0.35 * out["mid.classification"] + 0.65 * out["mid.ranking"], **TOL,
          what="w = 0.35: convex combination")
    # the terms themselves do not depend on the weight
    close(out["mid.classification"], out["ce_only.classification"], **TOL, what="classification vs weight")
    close(out["mid.ranking"], out["rank_only.ranking"], **TOL, what="ranking vs weight")


@check("classification_term_is_softmax_cross_entropy")
def softmax_cross_entropy(out, ref):
    logits, labels = ref["logits"], ref["labels"].astype(int)
    top = logits.max(axis=1, keepdims=True)
    log_softmax = logits - top - np.log(np.exp(logits - top).sum(axis=1, keepdims=True))
    expected = -log_softmax[np.arange(len(labels)), labels].mean()
    close(out["classification"], expected, **TOL, what="classification")
    # independent of the scores and of the pairs
    close(out["other_classification"], out["classification"], **TOL, what="classification vs scores/pairs")


@check("ranking_is_mean_logistic_loss_over_pairs")
def mean_logistic(out, ref):
    scores, pairs = ref["scores"], ref["pairs"].astype(int)
    margins = scores[pairs[:, 0]] - scores[pairs[:, 1]]
    close(out["ranking"], np.log1p(np.exp(-margins)).mean(), **TOL, what="ranking")
    # shifting every score by a constant changes nothing; pair order does not matter
    close(out["shifted"], out["ranking"], **TOL, what="shifted scores")
    close(out["permuted"], out["ranking"], **TOL, what="permuted pairs")
    # duplicating every pair leaves the mean unchanged
    close(out["duplicated"], out["ranking"], **TOL, what="duplicated pairs")


@check("no_pairs")
def no_pairs(out, ref):
    close(out["ranking"], 0.0, **TOL, what="ranking without pairs")
    close(out["loss"], 0.6 * out["classification"], **TOL, what="loss without pairs")
    expect(bool(np.all(out["grad_scores"] == 0)), "score gradient is not zero without pairs")
    finite(out["grad_logits"], "logit gradient")


@check("large_score_differences_are_stable*")
def large_differences(out, ref):
    equal(out["loss#dtype"], ref["loss#dtype"], what="loss dtype")
    close(out["ranking"], 500.0, rtol=1e-6, atol=1e-4, what="ranking")
    finite(out["grad"], "gradient")
    # d ranking / d s = -sigmoid(-margin) / P: 0 for the satisfied pair, -1/2 and +1/2 for the violated one
    close(out["grad"], [0.0, 0.0, -0.5, 0.5], rtol=1e-7, atol=1e-6, what="gradient")


@check("ranking_gradient_direction")
def gradient_direction(out, ref):
    labels, grad = ref["labels"].astype(int), out["grad"]
    # descent raises every strengthener's score and lowers every weakener's
    expect(bool(np.all(grad[labels == 1] < 0)), "a strengthener's score gradient is not negative")
    expect(bool(np.all(grad[labels == 0] > 0)), "a weakener's score gradient is not positive")
    # a single pair with equal scores: gradient -0.5 / +0.5 (sigmoid(0) = 1/2, P = 1)
    close(out["single_grad"], [-0.4, 0.4], **TOL, what="single-pair gradient")  # (1 - 0.2) * (-0.5, 0.5)
    close(out["single_ranking"], math.log(2.0), **TOL, what="single-pair ranking")
