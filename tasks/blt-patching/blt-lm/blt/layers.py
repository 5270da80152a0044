"""Shared building blocks: head layout, masks, scaled dot-product attention, the pre-norm transformer block."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


def split_heads(x: torch.Tensor, n_heads: int) -> torch.Tensor:
    """(B, T, n_heads * d) -> (B, n_heads, T, d); head h holds features [h * d, (h + 1) * d)."""
    b, t, width = x.shape
    return x.view(b, t, n_heads, width // n_heads).transpose(1, 2)


def merge_heads(x: torch.Tensor) -> torch.Tensor:
    """(B, n_heads, T, d) -> (B, T, n_heads * d), the inverse of `split_heads`."""
    b, h, t, d = x.shape
    return x.transpose(1, 2).reshape(b, t, h * d)


def causal_mask(t: int, window: int | None = None, device: torch.device | None = None) -> torch.Tensor:
    """(T, T) bool, True where query i may attend to key j: j <= i, and i - j < window when a window is given."""
    i = torch.arange(t, device=device).unsqueeze(1)
    j = torch.arange(t, device=device).unsqueeze(0)
    allowed = j <= i
    if window is not None:
        allowed = allowed & (i - j < window)
    return allowed


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
    """Softmax attention with scale 1/sqrt(d); `allowed` broadcasts to (B, H, Tq, Tk); every row allows a key."""
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v


class SelfAttention(nn.Module):
    """Multi-head causal self-attention, optionally restricted to a window of preceding positions."""

    def __init__(self, d: int, n_heads: int, window: int | None) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.window = window
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = (split_heads(part, self.n_heads) for part in self.qkv(x).chunk(3, dim=-1))
        allowed = causal_mask(x.shape[1], self.window, x.device)
        return self.out(merge_heads(attention(q, k, v, allowed)))


class TransformerBlock(nn.Module):
    """Pre-LayerNorm block: x + SelfAttention(LN(x)), then + MLP(LN(x)). Position t depends on x[:, :t + 1]."""

    def __init__(self, d: int, n_heads: int, window: int | None = None, eps: float = 1e-5) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(d, eps=eps)
        self.attn = SelfAttention(d, n_heads, window)
        self.norm2 = nn.LayerNorm(d, eps=eps)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


def learned_positions(n: int, d: int) -> nn.Parameter:
    """A small learned absolute position table, (n, d)."""
    return nn.Parameter(0.02 * torch.randn(n, d))


def byte_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy of (B, T, V) logits against (B, T) int64 targets."""
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
