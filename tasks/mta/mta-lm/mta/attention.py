"""Multi-Token Attention (Section 3 of paper.md), with rotary embeddings and a cache for incremental decoding."""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from mta.cache import LayerCache
from mta.config import ModelConfig, Placement
from mta.layers import RMSNorm, apply_rotary, causal_mask


def mask_future(scores: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
                value: float) -> torch.Tensor:
    """The masking operator Mask_value of paper.md, applied to an attention map.

    Args:
        scores: (..., Tq, Tk) attention logits or weights.
        q_positions: (Tq,) int64 absolute positions of the rows' queries.
        k_positions: (Tk,) int64 absolute positions of the columns' keys.
        value: the value written into the masked entries (0.0 or float("-inf") in this package).

    Returns:
        A new tensor, shape and dtype of `scores`.

    Raises:
        ValueError: if the positions do not match the last two dimensions of `scores`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def key_query_conv(scores: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """The key-query convolution Conv2d_theta of Section 3.1, one kernel per head.

    Args:
        scores: (B, H, Tq, Tk) attention maps; rows are consecutive query positions, columns consecutive key
            positions (row r and column c stand for the paper's i and j).
        kernel: (H, c_q, c_k) the kernels theta of the H heads; kernel[h, i', j' + c_k // 2] is theta_{i', j'}
            of head h (i' in 0 .. c_q - 1, j' in -(c_k // 2) .. ceil(c_k / 2) - 1).

    Returns:
        (B, H, Tq, Tk), dtype of `scores`.

    Raises:
        ValueError: if `scores` is not 4-D or `kernel` is not (H, c_q, c_k) with the H of `scores`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def head_mix(maps: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    """The head-mixing convolution of Section 3.2 over groups of c_h consecutive heads.

    Args:
        maps: (B, H, Tq, Tk) attention logits or weights of the H heads.
        kernel: (H / c_h, c_h, c_h); kernel[g, a, b] is the weight w_{a+1, b+1} with which head g c_h + b enters
            head g c_h + a in group g.

    Returns:
        (B, H, Tq, Tk), dtype of `maps`.

    Raises:
        ValueError: if `maps` is not 4-D or `kernel` is not (G, c_h, c_h) with G c_h = H.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def attention_weights(scores: torch.Tensor, q_positions: torch.Tensor, k_positions: torch.Tensor,
                      kq_kernel: torch.Tensor | None, kq_conv: Placement, head_kernel: torch.Tensor | None,
                      head_conv: Placement) -> torch.Tensor:
    """Multi-token attention weights A from the logits QK^T / sqrt(d) (Section 3).

    Args:
        scores: (B, H, Tq, Tk) logits; row r is the query at q_positions[r], column c the key at k_positions[c].
            The rows are consecutive positions and so are the columns, with k_positions starting at 0.
        q_positions, k_positions: (Tq,) and (Tk,) int64 absolute positions.
        kq_kernel: (H, c_q, c_k) as for `key_query_conv`; ignored when kq_conv is "none" (may then be None).
        kq_conv: placement of the key-query convolution: "pre", "post" or "none".
        head_kernel: (H / c_h, c_h, c_h) as for `head_mix`; ignored when head_conv is "none" (may then be None).
        head_conv: placement of the head-mixing convolution: "pre", "post" or "none".

    Returns:
        (B, H, Tq, Tk) attention weights, dtype of `scores`, and computed in it throughout (float32 or float64; no
        up- or down-cast).

    Raises:
        ValueError: if a placement is not one of "none", "pre", "post", or a kernel a placement uses is None.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class MTAttention(nn.Module):
    """Multi-head Multi-Token Attention (Section 3 of paper.md), one layer.

    Attributes (names and shapes are the interface: weights are loaded by name):
        q_proj, k_proj, v_proj: nn.Linear(d_model, d_model, bias=False); viewed as (..., n_heads, head_dim), head h
            at [..., h, :]. Queries and keys get `apply_rotary` (base cfg.rope_base) at their absolute positions.
        out_proj: nn.Linear(d_model, d_model, bias=False), applied to the heads concatenated in head order.
        kq_kernel: nn.Parameter (n_heads, kq_query, kq_key), layout of `key_query_conv`'s kernel.
        head_kernel: nn.Parameter (n_heads / head_group, head_group, head_group), layout of `head_mix`'s kernel.
        head_norm: RMSNorm(head_dim, cfg.norm_eps): the group normalisation, one group per head.
        use_kq: whether this layer has the key-query convolution (cfg.kq_conv != "none" and
            layer % cfg.kq_every == 0).
        layer: the layer's 1-based index l.
    """

    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        super().__init__()
        if layer < 1:
            raise ValueError(f"layer indices start at 1, got {layer}")
        self.cfg = cfg
        self.layer = layer
        self.q_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.k_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.v_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        self.out_proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)
        # identity kernels: the layer starts as standard attention (Section 3.4)
        kq = torch.zeros(cfg.n_heads, cfg.kq_query, cfg.kq_key)
        kq[:, 0, cfg.kq_key // 2] = 1.0
        self.kq_kernel = nn.Parameter(kq)
        eye = torch.eye(cfg.head_group).expand(cfg.n_heads // cfg.head_group, -1, -1)
        self.head_kernel = nn.Parameter(eye.clone())
        self.head_norm = RMSNorm(cfg.head_dim, cfg.norm_eps)
        self.use_kq = cfg.kq_conv != "none" and layer % cfg.kq_every == 0

    def forward(self, x: torch.Tensor, cache: LayerCache | None = None) -> torch.Tensor:
        """Multi-token attention over the current and earlier positions.

        Args:
            x: (B, T, d_model) inputs of T consecutive positions.
            cache: None: x holds positions 0 .. T-1. Otherwise x holds positions cache.length ..
                cache.length + T - 1, continuing the positions the cache has seen; the call updates the cache.

        Returns:
            (B, T, d_model), dtype of x, and computed in it throughout (float32 or float64; no up- or down-cast).

        Raises:
            ValueError: if x is not 3-D with last dimension d_model.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
