"""Turning logits into distributions and distributions into tokens, with explicit random numbers."""

from __future__ import annotations

import numpy as np
import torch


def probs_from_logits(logits: torch.Tensor, temperature: float) -> torch.Tensor:
    """Next-token distributions from logits (..., vocab): softmax(logits / temperature); temperature 0 gives the
    one-hot distribution of the argmax (the lowest index on a tie). Same dtype as logits."""
    if temperature < 0:
        raise ValueError(f"temperature must be >= 0, got {temperature}")
    if temperature == 0:
        return torch.nn.functional.one_hot(torch.argmax(logits, dim=-1), logits.shape[-1]).to(logits.dtype)
    return torch.softmax(logits / temperature, dim=-1)


def sample_index(probs: torch.Tensor, u: float) -> int:
    """Inverse-CDF sampling from a (vocab,) vector of non-negative weights (normalised here) with a uniform number u
    in [0, 1): the smallest index whose cumulative weight exceeds u times the total (the last index of positive
    weight if rounding leaves none)."""
    weights = probs.to(torch.float64)
    total = float(weights.sum())
    if total <= 0:
        raise ValueError("cannot sample from all-zero weights")
    cdf = torch.cumsum(weights, dim=0)
    idx = int(torch.searchsorted(cdf, torch.tensor([u * total], dtype=torch.float64), right=True).item())
    if idx >= weights.numel() or weights[idx] <= 0:
        idx = int(torch.nonzero(weights > 0)[-1].item())
    return idx


class UniformStream:
    """The random numbers of a generation: uniform floats in [0, 1) from numpy's default_rng(seed), handed out
    one at a time. `used` counts the numbers taken so far."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.used = 0

    def next(self) -> float:
        """The next uniform number."""
        self.used += 1
        return float(self.rng.random())
