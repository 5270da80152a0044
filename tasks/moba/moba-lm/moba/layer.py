"""The attention layer of the model: projections, rotary embeddings, then MoBA or full causal attention."""
from __future__ import annotations

from typing import Literal

import torch
from torch import nn

from moba.attention import causal_attention
from moba.config import ModelConfig
from moba.layers import apply_rope
from moba.moba import moba_attention, moba_attention_varlen

LayerKind = Literal["moba", "full"]


class SelfAttention(nn.Module):
    """Multi-head causal self-attention whose attention is MoBA (kind "moba") or full attention ("full").

    Queries and keys are rotated (`apply_rope`) before the attention; MoBA's gate therefore sees rotated keys.
    """

    def __init__(self, cfg: ModelConfig, kind: LayerKind = "moba") -> None:
        super().__init__()
        if kind not in ("moba", "full"):
            raise ValueError(f"unknown layer kind {kind!r}")
        self.cfg = cfg
        self.kind = kind
        self.q_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.o_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)

    def heads(self, x: torch.Tensor) -> torch.Tensor:
        """(B, T, d_model) -> (B, H, T, head_dim)."""
        b, t, _ = x.shape
        return x.view(b, t, self.cfg.n_heads, self.cfg.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """(B, T, d_model) -> (B, T, d_model)."""
        cfg = self.cfg
        q = apply_rope(self.heads(self.q_proj(x)), cfg.rope_base)
        k = apply_rope(self.heads(self.k_proj(x)), cfg.rope_base)
        v = self.heads(self.v_proj(x))
        if self.kind == "full":
            out = causal_attention(q, k, v)
        elif cfg.moba_impl == "naive":
            out, _ = moba_attention(q, k, v, cfg.block_size, cfg.top_k)
        else:
            out, _ = moba_attention_varlen(q, k, v, cfg.block_size, cfg.top_k)
        b, _, t, _ = out.shape
        return self.o_proj(out.transpose(1, 2).reshape(b, t, cfg.d_model))
