"""Sampling with explicit random numbers, so that a run is reproducible draw by draw."""

from __future__ import annotations

import numpy as np
import torch


def sample_index(weights: torch.Tensor, u: float) -> int:
    """Inverse-CDF sampling from a (vocab,) vector of non-negative weights (normalised here) with a uniform number
    u in [0, 1): the smallest index whose cumulative weight exceeds u times the total (the last index of positive
    weight if rounding leaves none). Raises ValueError if every weight is zero."""
    w = weights.to(torch.float64)
    total = float(w.sum())
    if total <= 0:
        raise ValueError("cannot sample from all-zero weights")
    cdf = torch.cumsum(w, dim=0)
    idx = int(torch.searchsorted(cdf, torch.tensor([u * total], dtype=torch.float64), right=True).item())
    if idx >= w.numel() or w[idx] <= 0:
        idx = int(torch.nonzero(w > 0)[-1].item())
    return idx


class UniformStream:
    """The random numbers of a generation: uniform floats in [0, 1) from numpy's default_rng(seed), handed out one
    at a time. `used` counts the numbers taken so far."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.used = 0

    def next(self) -> float:
        """The next uniform number."""
        self.used += 1
        return float(self.rng.random())
