"""Softmax attention primitives: full causal attention and attention under an arbitrary key mask."""
from __future__ import annotations

import math

import torch


def check_attention_inputs(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    """Raise ValueError unless q, k are (B, H, T, D) and v is (B, H, T, Dv) with the same B, H, T and dtype."""
    if q.dim() != 4 or k.dim() != 4 or v.dim() != 4:
        raise ValueError("q, k and v must be 4-d: (B, H, T, D)")
    if q.shape != k.shape:
        raise ValueError(f"q {tuple(q.shape)} and k {tuple(k.shape)} differ in shape")
    if v.shape[:3] != q.shape[:3]:
        raise ValueError(f"v {tuple(v.shape)} does not match q {tuple(q.shape)} in (B, H, T)")
    if not (q.dtype == k.dtype == v.dtype):
        raise ValueError("q, k and v must share a dtype")


def default_scale(head_dim: int, scale: float | None) -> float:
    """The multiplier of query-key dot products: `scale`, or 1/sqrt(head_dim) when it is None."""
    return 1.0 / math.sqrt(head_dim) if scale is None else scale


def masked_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: torch.Tensor,
                     scale: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Softmax attention of every query over the keys the mask allows.

    Args:
        q: (..., Tq, D). k: (..., Tk, D). v: (..., Tk, Dv). Leading dimensions broadcast.
        mask: bool, broadcastable to (..., Tq, Tk); True where the query may attend to the key.
        scale: multiplier of the dot products q . k.

    Returns:
        (out, lse): out (..., Tq, Dv), the attention output; lse (..., Tq), the natural log of the softmax
        normaliser, log sum_j exp(scale * q . k_j) over the allowed keys. A query with no allowed key gets
        out = 0 and lse = -inf.
    """
    scores = (q @ k.transpose(-1, -2)) * scale
    scores = scores.masked_fill(~mask, float("-inf"))
    row_max = scores.amax(dim=-1, keepdim=True).detach()
    row_max = torch.where(torch.isfinite(row_max), row_max, torch.zeros_like(row_max))
    weights = torch.exp(scores - row_max)
    total = weights.sum(dim=-1, keepdim=True)
    safe_total = torch.where(total > 0, total, torch.ones_like(total))
    out = (weights @ v) / safe_total
    lse = torch.where(total > 0, torch.log(safe_total) + row_max, torch.full_like(total, float("-inf")))
    return out, lse.squeeze(-1)


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                     scale: float | None = None) -> torch.Tensor:
    """Full causal softmax attention: (B, H, T, D), (B, H, T, D), (B, H, T, Dv) -> (B, H, T, Dv).
    `scale` None means 1/sqrt(D)."""
    check_attention_inputs(q, k, v)
    t = q.shape[-2]
    causal = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    out, _ = masked_attention(q, k, v, causal, default_scale(q.shape[-1], scale))
    return out
