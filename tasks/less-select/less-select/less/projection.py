"""The random projection of gradient features (Section 2.2 of paper.md)."""
from __future__ import annotations

import torch


def random_projection(in_dim: int, out_dim: int, seed: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Pi: (in_dim, out_dim) Rademacher matrix with entries +-1/sqrt(out_dim), drawn from a seeded generator.

    A feature x of length in_dim is projected as x @ Pi.
    """
    g = torch.Generator().manual_seed(seed)
    signs = torch.randint(0, 2, (in_dim, out_dim), generator=g).to(dtype) * 2 - 1
    return signs / out_dim**0.5
