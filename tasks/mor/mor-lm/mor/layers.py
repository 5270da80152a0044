"""Transformer building blocks: RMSNorm, rotary embeddings, masked attention, SwiGLU MLP, pre-norm block."""
from __future__ import annotations

import math

import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


def rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotary position embedding (rotate-half form).

    x: (B, H, T, dh); positions: (B, T) integer positions of the T rows (need not be contiguous).
    """
    dh = x.shape[-1]
    half = dh // 2
    inv = base ** (-torch.arange(half, dtype=x.dtype, device=x.device) / half)
    ang = positions.to(x.dtype)[:, None, :, None] * inv          # (B, 1, T, half)
    cos, sin = torch.cos(ang), torch.sin(ang)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


def causal_mask(q_positions: torch.Tensor, k_positions: torch.Tensor) -> torch.Tensor:
    """Boolean (B, Tq, Tk) mask, True where the key's position is at or before the query's position."""
    return k_positions[:, None, :] <= q_positions[:, :, None]


def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Scaled dot-product attention with an explicit boolean mask.

    q: (B, H, Tq, dh); k, v: (B, H, Tk, dh); mask: (B, Tq, Tk) bool, True = the query may attend to the key.
    Returns (B, H, Tq, dh). A query row whose mask allows no key returns zeros.
    """
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    m = mask[:, None, :, :]
    scores = scores.masked_fill(~m, float("-inf"))
    any_key = m.any(dim=-1, keepdim=True)
    scores = torch.where(any_key, scores, torch.zeros_like(scores))
    probs = torch.softmax(scores, dim=-1) * any_key
    return probs @ v


class MLP(nn.Module):
    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w2(nn.functional.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    """Pre-norm Transformer layer, split so that keys/values can come from elsewhere (a cache, a shared step).

    `qkv` projects the layer input; `mix` runs attention with the given keys/values and the MLP, adding both
    residual branches; `forward(x, positions, mask) == mix(x, *qkv(x, positions), mask)`.
    """

    def __init__(self, d_model: int, n_heads: int, d_ff: int, eps: float = 1e-6, rope_base: float = 10000.0):
        super().__init__()
        self.n_heads = n_heads
        self.rope_base = rope_base
        self.norm1 = RMSNorm(d_model, eps)
        self.wq = nn.Linear(d_model, d_model, bias=False)
        self.wk = nn.Linear(d_model, d_model, bias=False)
        self.wv = nn.Linear(d_model, d_model, bias=False)
        self.wo = nn.Linear(d_model, d_model, bias=False)
        self.norm2 = RMSNorm(d_model, eps)
        self.mlp = MLP(d_model, d_ff)

    def _heads(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        return x.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2)

    def qkv(self, x: torch.Tensor, positions: torch.Tensor):
        """x: (B, T, d); positions: (B, T). Returns q, k, v of shape (B, H, T, dh), rotary applied to q and k."""
        h = self.norm1(x)
        q = rope(self._heads(self.wq(h)), positions, self.rope_base)
        k = rope(self._heads(self.wk(h)), positions, self.rope_base)
        return q, k, self._heads(self.wv(h))

    def mix(self, x: torch.Tensor, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
            mask: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d) layer input; q: (B, H, T, dh); k, v: (B, H, S, dh); mask: (B, T, S). Returns (B, T, d)."""
        b, t, d = x.shape
        a = attention(q, k, v, mask).transpose(1, 2).reshape(b, t, d)
        x = x + self.wo(a)
        return x + self.mlp(self.norm2(x))

    def forward(self, x: torch.Tensor, positions: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        return self.mix(x, *self.qkv(x, positions), mask)
