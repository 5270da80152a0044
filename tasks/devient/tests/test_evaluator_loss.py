"""Hidden tests for devient/1: `evaluator_loss` in dve/losses.py."""
import math
from pathlib import Path

import pytest
import torch

from dve.losses import EvaluatorLossOutput, evaluator_loss

CASES = torch.load(Path(__file__).parent / "fixtures" / "evaluator_cases.pt", weights_only=True)
DT = torch.float64


def close(actual, expected, rtol=1e-7, atol=1e-10):
    assert isinstance(actual, torch.Tensor)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    torch.testing.assert_close(actual.to(expected.dtype), expected, rtol=rtol, atol=atol)


def grads(out, scores, logits):
    gs, gl = torch.autograd.grad(out, (scores, logits), allow_unused=True)
    return (torch.zeros_like(scores) if gs is None else gs, torch.zeros_like(logits) if gl is None else gl)


@pytest.mark.parametrize("i", range(len(CASES)))
def test_matches_reference(i):
    c = CASES[i]
    s = c["scores"].clone().requires_grad_(True)
    lg = c["logits"].clone().requires_grad_(True)
    out = evaluator_loss(s, lg, c["labels"], c["pairs"], classification_weight=c["weight"])
    assert isinstance(out, EvaluatorLossOutput)
    close(out.loss, c["loss"])
    close(out.classification, c["classification"])
    close(out.ranking, c["ranking"])
    gs, gl = grads(out.loss, s, lg)
    close(gs, c["grad_scores"], rtol=1e-6, atol=1e-10)
    close(gl, c["grad_logits"], rtol=1e-6, atol=1e-10)


def test_hand_values():
    # Two items of one premise/hypothesis: item 0 a strengthener, item 1 a weakener.
    # scores (2, 0): margin 2, ranking = log(1 + e^-2) = 0.1269280110429725.
    # logits all zero: cross-entropy = log 2 = 0.6931471805599453 for both items.
    # w = 0.9: loss = 0.9 log 2 + 0.1 * 0.1269280110429725 = 0.636525263608248.
    labels = torch.tensor([1, 0])
    pairs = torch.tensor([[0, 1]])
    out = evaluator_loss(torch.tensor([2.0, 0.0], dtype=DT), torch.zeros(2, 2, dtype=DT), labels, pairs)
    close(out.ranking, torch.tensor(0.1269280110429725, dtype=DT))
    close(out.classification, torch.tensor(0.6931471805599453, dtype=DT))
    close(out.loss, torch.tensor(0.636525263608248, dtype=DT))
    # scores (-1, 1): the weakener wins, margin -2: ranking = log(1 + e^2) = 2.1269280110429727.
    # logits [[2, 0], [0, 1]]: item 0 (label 1) costs log(1 + e^2), item 1 (label 0) costs
    # log(1 + e); mean = 1.7200948492805974. w = 0.5: loss = 1.923511430161785.
    out = evaluator_loss(torch.tensor([-1.0, 1.0], dtype=DT), torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=DT),
                         labels, pairs, classification_weight=0.5)
    close(out.ranking, torch.tensor(2.1269280110429727, dtype=DT))
    close(out.classification, torch.tensor(1.7200948492805974, dtype=DT))
    close(out.loss, torch.tensor(1.923511430161785, dtype=DT))


def _batch(seed, n=8):
    g = torch.Generator().manual_seed(seed)
    labels = torch.tensor([1, 0] * (n // 2))
    scores = torch.randn(n, generator=g, dtype=DT)
    logits = torch.randn(n, 2, generator=g, dtype=DT)
    pairs = torch.tensor([(i, j) for i in range(0, n, 2) for j in range(1, n, 2) if abs(i - j) < 4])
    return scores, logits, labels, pairs


def test_weight_extremes_and_combination():
    scores, logits, labels, pairs = _batch(0)
    ce_only = evaluator_loss(scores, logits, labels, pairs, classification_weight=1.0)
    rank_only = evaluator_loss(scores, logits, labels, pairs, classification_weight=0.0)
    close(ce_only.loss, ce_only.classification)
    close(rank_only.loss, rank_only.ranking)
    mid = evaluator_loss(scores, logits, labels, pairs, classification_weight=0.35)
    close(mid.loss, 0.35 * mid.classification + 0.65 * mid.ranking)
    # the terms themselves do not depend on the weight
    close(mid.classification, ce_only.classification)
    close(mid.ranking, rank_only.ranking)


def test_classification_term_is_softmax_cross_entropy():
    scores, logits, labels, pairs = _batch(1)
    out = evaluator_loss(scores, logits, labels, pairs)
    expected = -(logits.log_softmax(-1).gather(1, labels[:, None]).squeeze(1)).mean()
    close(out.classification, expected)
    # independent of the scores and of the pairs
    other = evaluator_loss(scores * 3 + 1, logits, labels, pairs[:1])
    close(other.classification, out.classification)


def test_ranking_is_mean_logistic_loss_over_pairs():
    scores, logits, labels, pairs = _batch(2)
    out = evaluator_loss(scores, logits, labels, pairs)
    margins = scores[pairs[:, 0]] - scores[pairs[:, 1]]
    close(out.ranking, torch.log1p(torch.exp(-margins)).mean())
    # shifting every score by a constant changes nothing; pair order does not matter
    close(evaluator_loss(scores + 7.5, logits, labels, pairs).ranking, out.ranking)
    perm = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(0))
    close(evaluator_loss(scores, logits, labels, pairs[perm]).ranking, out.ranking)
    # duplicating every pair leaves the mean unchanged
    close(evaluator_loss(scores, logits, labels, torch.cat([pairs, pairs])).ranking, out.ranking)


def test_no_pairs():
    scores, logits, labels, _ = _batch(3, n=4)
    s = scores.clone().requires_grad_(True)
    lg = logits.clone().requires_grad_(True)
    out = evaluator_loss(s, lg, labels, torch.zeros(0, 2, dtype=torch.long), classification_weight=0.6)
    close(out.ranking, torch.tensor(0.0, dtype=DT))
    close(out.loss, 0.6 * out.classification)
    gs, gl = grads(out.loss, s, lg)
    assert bool((gs == 0).all()) and bool(torch.isfinite(gl).all())


def test_large_score_differences_are_stable():
    labels = torch.tensor([1, 0, 1, 0])
    pairs = torch.tensor([[0, 1], [2, 3]])
    logits = torch.zeros(4, 2, dtype=DT)
    for dtype in (torch.float32, DT):
        # pair 1: strengthener far above (loss ~ 0); pair 2: far below (loss ~ 1000)
        scores = torch.tensor([500.0, -500.0, -500.0, 500.0], dtype=dtype).requires_grad_(True)
        out = evaluator_loss(scores, logits.to(dtype), labels, pairs, classification_weight=0.0)
        assert out.loss.dtype == dtype
        close(out.ranking.double(), torch.tensor(500.0, dtype=DT), rtol=1e-6, atol=1e-4)
        (gs,) = torch.autograd.grad(out.loss, scores)
        assert bool(torch.isfinite(gs).all())
        # d ranking / d s = -sigmoid(-margin) / P: 0 for the satisfied pair, -1/2 and +1/2 for the violated one
        close(gs.double(), torch.tensor([0.0, 0.0, -0.5, 0.5], dtype=DT), atol=1e-6)


def test_ranking_gradient_direction():
    scores, logits, labels, pairs = _batch(4)
    s = scores.clone().requires_grad_(True)
    out = evaluator_loss(s, logits, labels, pairs, classification_weight=0.0)
    (gs,) = torch.autograd.grad(out.loss, s)
    # descent raises every strengthener's score and lowers every weakener's
    assert bool((gs[labels == 1] < 0).all()) and bool((gs[labels == 0] > 0).all())
    # a single pair with equal scores: gradient -0.5 / +0.5 (sigmoid(0) = 1/2, P = 1)
    s2 = torch.zeros(2, dtype=DT, requires_grad=True)
    out = evaluator_loss(s2, torch.zeros(2, 2, dtype=DT), torch.tensor([1, 0]), torch.tensor([[0, 1]]),
                         classification_weight=0.2)
    (g2,) = torch.autograd.grad(out.loss, s2)
    close(g2, torch.tensor([-0.4, 0.4], dtype=DT))     # (1 - 0.2) * (-0.5, 0.5)
    close(out.ranking, torch.tensor(math.log(2.0), dtype=DT))
