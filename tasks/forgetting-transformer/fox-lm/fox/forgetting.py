"""Forgetting Attention and the FoX token-mixing layer (LLaMA and Pro block variants)."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from fox.config import ModelConfig
from fox.layers import RMSNorm, causal_mask, merge_heads, split_heads


def forgetting_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_fgate: torch.Tensor,
                         scale: float | None = None) -> torch.Tensor:
    """Causal Forgetting Attention over a batch of multi-head sequences.

    Args:
        q: queries, (B, H, T, D), floating point.
        k: keys, (B, H, T, D), same dtype as q.
        v: values, (B, H, T, Dv), same dtype as q.
        log_fgate: log forget gate values log f_t, (B, H, T), same dtype as q, entries <= 0; entry t belongs to
            time step t of that sequence and head.
        scale: multiplier of the query-key dot products; None means 1/sqrt(D).

    Returns:
        The attention outputs, (B, H, T, Dv), dtype of q; differentiable with respect to q, k, v and log_fgate.
        Computed in the dtype of q throughout (float32 or float64; no up- or down-cast).

    Raises:
        ValueError: if log_fgate's shape is not (B, H, T) for the B, H, T of q.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def token_shift(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """Data-dependent token shift of per-head vectors along time.

    Args:
        x: (B, T, H, D), floating point.
        alpha: shift gate values, (B, T, H), same dtype as x, entries in [0, 1]; entry t belongs to time step t.

    Returns:
        (B, T, H, D), dtype of x. The vector before the first time step is taken to be zero.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class ForgettingAttention(nn.Module):
    """The FoX token-mixing layer of one block (no positional embedding), in its "llama" or "pro" form."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        h, d = cfg.n_heads, cfg.head_dim
        inner = h * d
        # heads are laid out as `fox.layers.split_heads` does; the gate projections give one logit per head
        self.q_proj = nn.Linear(cfg.d_model, inner, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, inner, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, inner, bias=False)
        self.o_proj = nn.Linear(inner, cfg.d_model, bias=False)
        self.fgate_proj = nn.Linear(cfg.d_model, h, bias=True)
        if cfg.block == "pro":
            self.q_norm = RMSNorm(d, cfg.norm_eps)
            self.k_norm = RMSNorm(d, cfg.norm_eps)
            self.k_shift_proj = nn.Linear(cfg.d_model, h, bias=True)
            self.v_shift_proj = nn.Linear(cfg.d_model, h, bias=True)
            self.out_norm = RMSNorm(d, cfg.norm_eps)
            self.ogate_proj = nn.Linear(cfg.d_model, inner, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Mix the tokens of x.

        Args:
            x: (B, T, d_model), floating point, the (already normalised) input of the layer.

        Returns:
            (B, T, d_model), dtype of x; position t depends on x[:, :t + 1] only.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
