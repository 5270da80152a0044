"""Small building blocks shared by the layers."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


def log_decay(dt: torch.Tensor, A_log: torch.Tensor) -> torch.Tensor:
    """Log of the Mamba-2 decay a in (0, 1]: log a = -exp(A_log) * dt, per head.

    dt: (..., num_heads) positive step sizes; A_log: (num_heads,) parameter.
    """
    return -A_log.exp() * dt


def causal_mask(T: int, device: torch.device | None = None) -> torch.Tensor:
    """Boolean (T, T) matrix, true where the key position s is at most the query position t (row t, column s)."""
    return torch.ones(T, T, dtype=torch.bool, device=device).tril()


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
