"""The Transformer baseline: causal softmax attention (LLaMA block, rotary embeddings)."""
from __future__ import annotations

import torch
from torch import nn

from fox.config import ModelConfig
from fox.layers import apply_rope, causal_mask, merge_heads, split_heads


def softmax_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                      scale: float | None = None) -> torch.Tensor:
    """Causal softmax attention. q, k: (B, H, T, D); v: (B, H, T, Dv) -> (B, H, T, Dv).

    `scale` multiplies the query-key dot products; None means 1/sqrt(D).
    """
    scale = q.shape[-1] ** -0.5 if scale is None else scale
    logits = torch.einsum("bhid,bhjd->bhij", q, k) * scale
    logits = logits.masked_fill(~causal_mask(q.shape[2], q.device), float("-inf"))
    return torch.einsum("bhij,bhjd->bhid", torch.softmax(logits, dim=-1), v)


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention of the Transformer (LLaMA) baseline."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        inner = cfg.n_heads * cfg.head_dim
        self.q_proj = nn.Linear(cfg.d_model, inner, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, inner, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, inner, bias=False)
        self.o_proj = nn.Linear(inner, cfg.d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, T, d_model) -> (B, T, d_model)."""
        h = self.cfg.n_heads
        q = split_heads(self.q_proj(x), h)
        k = split_heads(self.k_proj(x), h)
        v = split_heads(self.v_proj(x), h)
        if self.cfg.rope:
            q, k = apply_rope(q, self.cfg.rope_base), apply_rope(k, self.cfg.rope_base)
        out = softmax_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        return self.o_proj(merge_heads(out.transpose(1, 2)))
