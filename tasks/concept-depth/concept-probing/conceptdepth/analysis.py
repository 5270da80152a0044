"""From per-layer probe results to concept depth."""
from __future__ import annotations

from typing import Sequence


def concept_depth(accuracies: Sequence[float], threshold: float = 0.9) -> int | None:
    """The first layer whose probe accuracy reaches `threshold`, or None if no layer does."""
    for layer, acc in enumerate(accuracies):
        if acc >= threshold:
            return layer
    return None


def relative_depth(depth: int | None, num_layers: int) -> float | None:
    """Depth as a fraction of the network (0 = embeddings, 1 = last layer), to compare models of different sizes."""
    return None if depth is None else depth / (num_layers - 1)


def format_table(results) -> str:
    lines = ["layer  accuracy     f1    auc"]
    for r in results:
        lines.append(f"{r.layer:>5}  {r.accuracy:8.3f}  {r.f1:5.3f}  {r.auc:5.3f}")
    return "\n".join(lines)
