"""Softmax attention with a learned gate (grouped-query heads, causal)."""
from __future__ import annotations

import math
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from gated.cache import LayerCache
from gated.config import ModelConfig
from gated.layers import causal_mask, repeat_kv


class AttentionOutput(NamedTuple):
    out: torch.Tensor             # (B, T, d_model)
    probs: torch.Tensor           # (B, n_heads, T, T_total) attention weights over all positions seen
    gate: torch.Tensor | None     # (B, T, n_groups, group_dim) gate scores, None when ungated


class GatedAttention(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.q_proj = nn.Linear(cfg.d_model, cfg.n_heads * cfg.head_dim, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, cfg.n_kv_heads * cfg.head_dim, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, cfg.n_kv_heads * cfg.head_dim, bias=False)
        self.o_proj = nn.Linear(cfg.n_heads * cfg.head_dim, cfg.d_model, bias=False)
        self.gate_proj = None
        if cfg.gate_position != "none":
            groups, width = cfg.gate_shape()
            self.gate_proj = nn.Linear(cfg.d_model, groups * width, bias=cfg.gate_bias)

    def gate_scores(self, x: torch.Tensor) -> torch.Tensor:
        """The gate scores of the inputs.

        Args:
            x: (B, T, d_model), the normalised hidden states entering the layer.

        Returns:
            (B, T, n_groups, group_dim) with (n_groups, group_dim) = cfg.gate_shape(), dtype of x.

        Raises:
            RuntimeError: if the layer has no gate (gate_position "none").
        """
        if self.gate_proj is None:
            raise RuntimeError("this layer has no gate")
        groups, width = self.cfg.gate_shape()
        z = self.gate_proj(x)
        s = torch.sigmoid(z) if self.cfg.gate_activation == "sigmoid" else F.silu(z)
        return s.view(*x.shape[:-1], groups, width)

    def apply_gate(self, y: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        """Combine a gated tensor with its gate scores.

        Args:
            y: (B, T, h, head_dim), the tensor at the gate's position, h = cfg.gated_heads() ("dense": n_heads).
            scores: (B, T, n_groups, group_dim), as returned by gate_scores.

        Returns:
            (B, T, h, head_dim), dtype of y.
        """
        if self.cfg.gate_combine == "multiply":
            return y * scores
        return y + scores

    def forward(self, x: torch.Tensor, cache: LayerCache | None = None) -> AttentionOutput:
        """Causal gated attention.

        Args:
            x: (B, T, d_model), the normalised hidden states entering the layer.
            cache: None: x holds positions 0 .. T-1. Otherwise x holds positions cache.length ..
                cache.length + T - 1, continuing the positions the cache has seen; the call updates the cache.

        Returns:
            AttentionOutput; out and probs have the dtype of x and are computed in it (float32 or float64; no
            up- or down-cast); T_total = T + the positions seen before.

        Raises:
            ValueError: if x is not 3-D with last dimension d_model.
        """
        cfg = self.cfg
        if x.ndim != 3 or x.shape[-1] != cfg.d_model:
            raise ValueError(f"expected (B, T, {cfg.d_model}), got {tuple(x.shape)}")
        b, t, _ = x.shape
        pos = cfg.gate_position
        gate = self.gate_scores(x) if pos != "none" else None
        q = self.q_proj(x).view(b, t, cfg.n_heads, cfg.head_dim)
        k = self.k_proj(x).view(b, t, cfg.n_kv_heads, cfg.head_dim)
        v = self.v_proj(x).view(b, t, cfg.n_kv_heads, cfg.head_dim)
        if pos == "query":
            q = self.apply_gate(q, gate)
        elif pos == "key":
            k = self.apply_gate(k, gate)
        elif pos == "value":
            v = self.apply_gate(v, gate)
        k, v = k.transpose(1, 2), v.transpose(1, 2)
        start = 0
        if cache is not None:
            start = cache.length
            if cache.keys is not None:
                k = torch.cat([cache.keys, k], dim=2)
                v = torch.cat([cache.values, v], dim=2)
            cache.keys, cache.values, cache.length = k, v, start + t
        n_rep = cfg.n_heads // cfg.n_kv_heads
        q = q.transpose(1, 2)
        k, v = repeat_kv(k, n_rep), repeat_kv(v, n_rep)
        scores = q @ k.transpose(2, 3) / math.sqrt(cfg.head_dim)
        positions = torch.arange(start + t, device=x.device)
        scores = scores.masked_fill(causal_mask(positions[start:], positions), float("-inf"))
        probs = torch.softmax(scores, dim=3)
        y = (probs @ v).transpose(1, 2)
        if pos == "sdpa":
            y = self.apply_gate(y, gate)
        out = self.o_proj(y.reshape(b, t, cfg.n_heads * cfg.head_dim))
        if pos == "dense":
            out = self.apply_gate(out.view(b, t, cfg.n_heads, cfg.head_dim), gate).reshape(b, t, cfg.d_model)
        return AttentionOutput(out, probs, gate)


def first_token_attention(probs: torch.Tensor) -> torch.Tensor:
    """Mean attention weight on the first position.

    Args:
        probs: (B, H, T, T) attention weights of one layer over a whole sequence, rows are queries.

    Returns:
        0-d tensor, dtype of probs: the weight on key position 0 averaged over the batch, the heads and all
        query positions.
    """
    return probs[:, :, :, 0].mean()
