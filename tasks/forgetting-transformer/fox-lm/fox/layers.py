"""Building blocks shared by the attention layers and the model."""
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
    """The feed-forward (channel-mixing) layer of every block: W2 (silu(W1 x) * W3 x)."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(B, T, n_heads * d) -> (B, T, n_heads, d): features [h*d, (h+1)*d) belong to head h."""
    b, t, width = x.shape
    return x.view(b, t, n_heads, width // n_heads)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, T, n_heads, d) -> (B, T, n_heads * d), the inverse of `split_heads`."""
    b, t, h, d = x.shape
    return x.reshape(b, t, h * d)


def causal_mask(seq_len: int, device: torch.device | None = None) -> torch.Tensor:
    """Bool (seq_len, seq_len): entry [i, j] is True where query i may attend to key j (j <= i)."""
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


def apply_rope(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary position embedding of x: (B, T, H, d) with d even; pairs (2i, 2i+1) are rotated."""
    _, t, _, d = x.shape
    inv_freq = base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = torch.arange(t, dtype=torch.float64)[:, None] * inv_freq[None, :]
    cos = angles.cos().to(x.dtype)[None, :, None, :]
    sin = angles.sin().to(x.dtype)[None, :, None, :]
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
    return rotated.flatten(-2)
