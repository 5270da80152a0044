"""Held-out evaluation of reading vectors."""
from __future__ import annotations

import torch

from repe.rep_reading import project


def heldout_pair_accuracy(directions: torch.Tensor, first: torch.Tensor, second: torch.Tensor,
                          first_is_positive: torch.Tensor) -> torch.Tensor:
    """(num_layers, n_components): for unseen pairs, the fraction where the positive stimulus scores
    strictly higher than the negative one on each reading vector."""
    s1, s2 = project(first, directions), project(second, directions)
    pos_higher = torch.where(first_is_positive[None, :, None].bool(), s1 > s2, s2 > s1)
    return pos_higher.to(torch.float64).mean(dim=1)


def best_layer(accuracy: torch.Tensor, layers: list[int]) -> int:
    """The layer whose first reading vector separates held-out pairs best (the earliest on ties)."""
    return layers[int(torch.argmax(accuracy[:, 0]))]
