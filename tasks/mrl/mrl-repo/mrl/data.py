"""Synthetic classification data: Gaussian clusters, one per class, in a few informative directions."""

from __future__ import annotations

import torch


def make_data(n: int, d_in: int = 12, num_classes: int = 5, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """(x (n, d_in) float64, y (n,) int64) with balanced classes; the class centres are the same for every seed,
    the samples differ."""
    centres = torch.randn(num_classes, d_in, generator=torch.Generator().manual_seed(1234), dtype=torch.float64) * 2.0
    g = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % num_classes
    x = centres[y] + torch.randn(n, d_in, generator=g, dtype=torch.float64)
    return x, y
