"""Subsumption prediction with a HiT encoder.

A pair (child, parent) is scored with the hyperbolic distance between the two embeddings and
the difference of their hyperbolic norms (distance to the origin of the ball):

    score(c, p) = -( dist(c, p) + lam * (norm(p) - norm(c)) )

A pair is predicted to be a subsumption when its score exceeds a threshold; ``lam`` and the
threshold are chosen on the pairs given and the best F1 is reported.
"""
from __future__ import annotations

import argparse
from typing import Dict

import torch

from hit.data import Taxonomy, pad_names, random_taxonomy
from hit.losses import poincare_distance
from hit.model import HierarchyEncoder


def pair_scores(model: HierarchyEncoder, tax: Taxonomy, pairs, lam: float, curvature: float) -> torch.Tensor:
    child = model(pad_names([tax.names[c] for c, _ in pairs]))
    parent = model(pad_names([tax.names[p] for _, p in pairs]))
    origin = torch.zeros_like(child)
    dist = poincare_distance(child, parent, curvature)
    norm_gap = poincare_distance(origin, parent, curvature) - poincare_distance(origin, child, curvature)
    return -(dist + lam * norm_gap)


def best_f1(scores: torch.Tensor, labels: torch.Tensor) -> float:
    best = 0.0
    for t in scores.unique():
        pred = scores >= t
        tp = (pred & labels).sum().item()
        fp = (pred & ~labels).sum().item()
        fn = (~pred & labels).sum().item()
        if tp:
            best = max(best, 2 * tp / (2 * tp + fp + fn))
    return best


@torch.no_grad()
def evaluate(model: HierarchyEncoder, tax: Taxonomy, seed: int = 1) -> Dict[str, float]:
    g = torch.Generator().manual_seed(seed)
    positives = tax.edges()
    negatives = []
    while len(negatives) < len(positives):
        c = int(torch.randint(1, len(tax.names), (1,), generator=g))
        p = int(torch.randint(0, len(tax.names), (1,), generator=g))
        if p != c and p not in tax.ancestors(c):
            negatives.append((c, p))
    pairs = positives + negatives
    labels = torch.tensor([True] * len(positives) + [False] * len(negatives))
    curvature = 1.0 / model.dim
    results = {}
    for lam in (0.0, 0.5, 1.0):
        results[f"f1@lambda={lam}"] = best_f1(pair_scores(model, tax, pairs, lam, curvature), labels)
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--entities", type=int, default=40)
    ap.add_argument("--dim", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    tax = random_taxonomy(args.entities, seed=args.seed)
    model = HierarchyEncoder(tax.vocab_size, dim=args.dim)
    for k, v in evaluate(model, tax).items():
        print(f"{k}: {v:.3f}")


if __name__ == "__main__":
    main()
