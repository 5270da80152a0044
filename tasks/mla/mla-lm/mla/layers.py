"""Building blocks shared by the attention layer and the model."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class RMSNorm(nn.Module):
    """Root-mean-square normalisation over the last dimension, with a learned gain of size `dim`."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


class SwiGLU(nn.Module):
    """The feed-forward layer of every block: W2 (silu(W1 x) * W3 x)."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(B, T, n_heads * d) -> (B, n_heads, T, d): features [i*d, (i+1)*d) belong to head i."""
    b, t, width = x.shape
    return x.view(b, t, n_heads, width // n_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, n_heads, T, d) -> (B, T, n_heads * d), the inverse of `split_heads`."""
    b, h, t, d = x.shape
    return x.transpose(1, 2).reshape(b, t, h * d)


def apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary position embedding.

    x: (..., T, d) with d even; positions: int64 (T,), the absolute position of each of the T rows.
    Feature pairs (2i, 2i+1) of the row at position p are rotated by the angle p * base^(-2i/d).
    """
    d = x.shape[-1]
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = positions.to(torch.float64)[:, None] * inv_freq[None, :]
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)


def causal_mask(t: int, length: int, device: torch.device | None = None) -> torch.Tensor:
    """Bool (t, length): True where query r, the token at position length - t + r, may attend to key position j
    (j <= length - t + r)."""
    query_pos = torch.arange(length - t, length, device=device)
    return torch.arange(length, device=device)[None, :] <= query_pos[:, None]
