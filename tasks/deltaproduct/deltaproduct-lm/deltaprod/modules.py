"""Small building blocks shared by the layers."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def l2_normalize(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """x divided by its L2 norm over the last dimension: x / sqrt(sum(x ** 2) + eps)."""
    return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


def log_forget_gate(a: torch.Tensor, A_log: torch.Tensor, dt_bias: torch.Tensor) -> torch.Tensor:
    """Log of the forget gate alpha in (0, 1): log alpha = -exp(A_log) * softplus(a + dt_bias), per head.

    a: (..., num_heads) projections of the input; A_log, dt_bias: (num_heads,) parameters.
    """
    return -A_log.exp() * F.softplus(a + dt_bias)


class RMSNorm(nn.Module):
    """Root-mean-square normalisation over the last dimension with a learned gain."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class SwiGLU(nn.Module):
    """The feed-forward block of each layer: down(silu(gate(x)) * up(x))."""

    def __init__(self, dim: int, hidden: int) -> None:
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.silu(self.gate(x)) * self.up(x))
