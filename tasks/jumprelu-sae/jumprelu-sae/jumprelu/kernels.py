"""Step and kernel functions on tensors (values only; no autograd rules here)."""
from __future__ import annotations

import torch


def heaviside(u: torch.Tensor) -> torch.Tensor:
    """H(u): 1 where u > 0, else 0 (so H(0) = 0), in the dtype of `u`."""
    return (u > 0).to(u.dtype)


def rectangle(u: torch.Tensor) -> torch.Tensor:
    """The rectangle kernel K(u) = H(u + 1/2) - H(u - 1/2): 1 where -1/2 < u < 1/2, else 0, in the dtype of `u`."""
    return ((u > -0.5) & (u < 0.5)).to(u.dtype)
