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
    if scores.shape[-2:] != (q_positions.shape[0], k_positions.shape[0]):
        raise ValueError(f"positions {tuple(q_positions.shape)}, {tuple(k_positions.shape)} do not match "
                         f"scores {tuple(scores.shape)}")
    return scores.masked_fill(causal_mask(q_positions, k_positions), value)


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
    if scores.ndim != 4 or kernel.ndim != 3 or kernel.shape[0] != scores.shape[1]:
        raise ValueError(f"scores {tuple(scores.shape)} and kernel {tuple(kernel.shape)} do not fit")
    c_q, c_k = kernel.shape[1:]
    half = c_k // 2
    t_q, t_k = scores.shape[-2:]
    # zero rows before the first query; zero columns beyond both ends of the keys
    padded = F.pad(scores, (c_k - 1 - half, half, c_q - 1, 0))
    out = torch.zeros_like(scores)
    for a in range(c_q):
        rows = slice(c_q - 1 - a, c_q - 1 - a + t_q)  # query i - a
        for b in range(c_k):
            cols = slice(c_k - 1 - b, c_k - 1 - b + t_k)  # key j - (b - half)
            out = out + kernel[:, a, b, None, None] * padded[..., rows, cols]
    return out


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
    if maps.ndim != 4 or kernel.ndim != 3 or kernel.shape[1] != kernel.shape[2]:
        raise ValueError(f"maps {tuple(maps.shape)} and kernel {tuple(kernel.shape)} do not fit")
    n_groups, c_h, _ = kernel.shape
    if n_groups * c_h != maps.shape[1]:
        raise ValueError(f"{n_groups} groups of {c_h} heads do not make {maps.shape[1]} heads")
    b, h, t_q, t_k = maps.shape
    grouped = maps.reshape(b, n_groups, c_h, t_q, t_k)
    return torch.einsum("gab,ngbqk->ngaqk", kernel, grouped).reshape(b, h, t_q, t_k)


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
    for placement, kernel in ((kq_conv, kq_kernel), (head_conv, head_kernel)):
        if placement not in ("none", "pre", "post"):
            raise ValueError(f"unknown placement {placement!r}")
        if placement != "none" and kernel is None:
            raise ValueError(f"placement {placement!r} needs a kernel")
    logits = mask_future(scores, q_positions, k_positions, 0.0)
    if kq_conv == "pre":
        logits = key_query_conv(logits, kq_kernel)
    if head_conv == "pre":
        logits = head_mix(logits, head_kernel)
    weights = torch.softmax(mask_future(logits, q_positions, k_positions, float("-inf")), dim=-1)
    if kq_conv == "post":
        weights = mask_future(key_query_conv(weights, kq_kernel), q_positions, k_positions, 0.0)
    if head_conv == "post":
        weights = head_mix(weights, head_kernel)
    return weights


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
        cfg = self.cfg
        if x.ndim != 3 or x.shape[-1] != cfg.d_model:
            raise ValueError(f"expected (B, T, {cfg.d_model}), got {tuple(x.shape)}")
        b, t, _ = x.shape
        h, d = cfg.n_heads, cfg.head_dim
        start = 0 if cache is None else cache.length
        positions = torch.arange(start, start + t)
        q, k, v = (proj(x).view(b, t, h, d).transpose(1, 2) for proj in (self.q_proj, self.k_proj, self.v_proj))
        q = apply_rotary(q, positions, cfg.rope_base)
        k = apply_rotary(k, positions, cfg.rope_base)
        n_prev = 0
        if cache is not None:
            k, v = cache.append(k, v)
            if self.use_kq and cache.queries is not None:
                # the convolution reaches c_q - 1 queries back: recompute their rows of the map
                n_prev = cache.queries.shape[-2]
                q = torch.cat([cache.queries, q], dim=-2)
            if self.use_kq and cfg.kq_query > 1:
                cache.queries = q[:, :, -(cfg.kq_query - 1):]
        q_positions = torch.arange(start - n_prev, start + t)
        k_positions = torch.arange(k.shape[-2])
        scores = q @ k.transpose(-1, -2) / math.sqrt(d)
        weights = attention_weights(scores, q_positions, k_positions, self.kq_kernel,
                                    cfg.kq_conv if self.use_kq else "none", self.head_kernel, cfg.head_conv)
        heads = weights[:, :, n_prev:] @ v  # (B, H, T, d)
        if cfg.group_norm:
            lambda_init = 0.8 - 0.6 * math.exp(-0.3 * (self.layer - 1))
            heads = self.head_norm(heads) * (1 - lambda_init)
        return self.out_proj(heads.transpose(1, 2).reshape(b, t, h * d))
