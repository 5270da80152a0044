"""Probe for devient/1: `evaluator_loss` in dve/losses.py. Runs in the sandbox; emits outputs only, never compares.

Every case's outputs are compared with the reference's (tests/expected/, outside the sandbox); the trusted
checks in check_evaluator_loss.py add the hand-checked values and the properties of the loss."""
from pathlib import Path

import torch

from dve.losses import EvaluatorLossOutput, evaluator_loss
from lmrbench_probe import case

CASES = torch.load(Path(__file__).parent / "fixtures" / "evaluator_cases.pt", weights_only=True)
DT = torch.float64
# the old tests' tolerances: values rtol 1e-7 / atol 1e-10, gradients rtol 1e-6 / atol 1e-10
TOL = dict(rtol=1e-7, atol=1e-10)
GRAD_TOL = {"grad*": dict(rtol=1e-6, atol=1e-10)}


def grads(out, scores, logits):
    gs, gl = torch.autograd.grad(out, (scores, logits), allow_unused=True)
    return (torch.zeros_like(scores) if gs is None else gs, torch.zeros_like(logits) if gl is None else gl)


def terms(out) -> dict:
    return {"loss": out.loss, "classification": out.classification, "ranking": out.ranking}


@case(params=range(len(CASES)), **TOL, outputs=GRAD_TOL)
def matches_reference(i):
    c = CASES[i]
    s = c["scores"].clone().requires_grad_(True)
    lg = c["logits"].clone().requires_grad_(True)
    out = evaluator_loss(s, lg, c["labels"], c["pairs"], classification_weight=c["weight"])
    is_output = isinstance(out, EvaluatorLossOutput)
    gs, gl = grads(out.loss, s, lg)
    return {"is_evaluator_loss_output": is_output, **terms(out), "grad_scores": gs, "grad_logits": gl}


@case(**TOL)
def hand_values():
    labels = torch.tensor([1, 0])
    pairs = torch.tensor([[0, 1]])
    first = evaluator_loss(torch.tensor([2.0, 0.0], dtype=DT), torch.zeros(2, 2, dtype=DT), labels, pairs)
    second = evaluator_loss(torch.tensor([-1.0, 1.0], dtype=DT), torch.tensor([[2.0, 0.0], [0.0, 1.0]], dtype=DT),
                            labels, pairs, classification_weight=0.5)
    return {"first": terms(first), "second": terms(second)}


def _batch(seed, n=8):
    g = torch.Generator().manual_seed(seed)
    labels = torch.tensor([1, 0] * (n // 2))
    scores = torch.randn(n, generator=g, dtype=DT)
    logits = torch.randn(n, 2, generator=g, dtype=DT)
    pairs = torch.tensor([(i, j) for i in range(0, n, 2) for j in range(1, n, 2) if abs(i - j) < 4])
    return scores, logits, labels, pairs


@case(**TOL)
def weight_extremes_and_combination():
    scores, logits, labels, pairs = _batch(0)
    return {
        "ce_only": terms(evaluator_loss(scores, logits, labels, pairs, classification_weight=1.0)),
        "rank_only": terms(evaluator_loss(scores, logits, labels, pairs, classification_weight=0.0)),
        "mid": terms(evaluator_loss(scores, logits, labels, pairs, classification_weight=0.35)),
    }


@case(**TOL)
def classification_term_is_softmax_cross_entropy():
    scores, logits, labels, pairs = _batch(1)
    out = evaluator_loss(scores, logits, labels, pairs)
    other = evaluator_loss(scores * 3 + 1, logits, labels, pairs[:1])
    return {"logits": logits, "labels": labels, "classification": out.classification,
            "other_classification": other.classification}


@case(**TOL)
def ranking_is_mean_logistic_loss_over_pairs():
    scores, logits, labels, pairs = _batch(2)
    perm = torch.randperm(len(pairs), generator=torch.Generator().manual_seed(0))
    return {
        "scores": scores, "pairs": pairs,
        "ranking": evaluator_loss(scores, logits, labels, pairs).ranking,
        "shifted": evaluator_loss(scores + 7.5, logits, labels, pairs).ranking,
        "permuted": evaluator_loss(scores, logits, labels, pairs[perm]).ranking,
        "duplicated": evaluator_loss(scores, logits, labels, torch.cat([pairs, pairs])).ranking,
    }


@case(**TOL)
def no_pairs():
    scores, logits, labels, _ = _batch(3, n=4)
    s = scores.clone().requires_grad_(True)
    lg = logits.clone().requires_grad_(True)
    out = evaluator_loss(s, lg, labels, torch.zeros(0, 2, dtype=torch.long), classification_weight=0.6)
    gs, gl = grads(out.loss, s, lg)
    return {**terms(out), "grad_scores": gs, "grad_logits": gl}


@case(params=[torch.float32, DT], ids=["float32", "float64"], rtol=1e-6, atol=1e-4,
      outputs={"grad": dict(rtol=1e-7, atol=1e-6)})
def large_score_differences_are_stable(dtype):
    labels = torch.tensor([1, 0, 1, 0])
    pairs = torch.tensor([[0, 1], [2, 3]])
    logits = torch.zeros(4, 2, dtype=DT)
    # pair 1: strengthener far above (loss ~ 0); pair 2: far below (loss ~ 1000)
    scores = torch.tensor([500.0, -500.0, -500.0, 500.0], dtype=dtype).requires_grad_(True)
    out = evaluator_loss(scores, logits.to(dtype), labels, pairs, classification_weight=0.0)
    (gs,) = torch.autograd.grad(out.loss, scores)
    return {"loss": out.loss, "ranking": out.ranking, "grad": gs}


@case(**TOL)
def ranking_gradient_direction():
    scores, logits, labels, pairs = _batch(4)
    s = scores.clone().requires_grad_(True)
    out = evaluator_loss(s, logits, labels, pairs, classification_weight=0.0)
    (gs,) = torch.autograd.grad(out.loss, s)
    s2 = torch.zeros(2, dtype=DT, requires_grad=True)
    single = evaluator_loss(s2, torch.zeros(2, 2, dtype=DT), torch.tensor([1, 0]), torch.tensor([[0, 1]]),
                            classification_weight=0.2)
    (g2,) = torch.autograd.grad(single.loss, s2)
    return {"labels": labels, "grad": gs, "single_grad": g2, "single_ranking": single.ranking}
