"""Evaluate the DVE evaluator: update-type accuracy and pairwise ranking accuracy.

Ranking accuracy is the share of (strengthener, weakener) pairs of the same premise/hypothesis
whose strengthener gets the higher entailment-strength score.
"""
from __future__ import annotations

import argparse
from typing import Dict, List

import torch

from dve.data import Group, make_batch, random_groups
from dve.losses import evaluator_loss
from dve.model import InferenceAwareEvaluator


@torch.no_grad()
def evaluate(model: InferenceAwareEvaluator, groups: List[Group], classification_weight: float = 0.9) -> Dict[str, float]:
    images, hyps, upds, labels, pairs = make_batch(groups)
    scores, logits = model(images, hyps, upds)
    out = evaluator_loss(scores, logits, labels, pairs, classification_weight)
    rank_acc = (scores[pairs[:, 0]] > scores[pairs[:, 1]]).float().mean().item() if len(pairs) else float("nan")
    return {
        "loss": out.loss.item(),
        "type_accuracy": (logits.argmax(-1) == labels).float().mean().item(),
        "ranking_accuracy": rank_acc,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    model = InferenceAwareEvaluator()
    print({k: round(v, 4) for k, v in evaluate(model, random_groups(32, seed=args.seed + 5)).items()})


if __name__ == "__main__":
    main()
