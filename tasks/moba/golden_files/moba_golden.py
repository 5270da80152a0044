"""Mixture of Block Attention (MoBA): block gating, the masked (naive) form and the gathered (varlen) form."""
from __future__ import annotations

from typing import NamedTuple

import torch
import torch.nn.functional as F

from moba.attention import check_attention_inputs, default_scale, masked_attention
from moba.blocks import block_lengths, block_of, check_block_size, num_blocks


class VarlenLayout(NamedTuple):
    """Queries gathered per key block, in the packed ("varlen") layout.

    Key blocks are numbered g = (b * H + h) * n + j for block j of sequence b, head h (n blocks per sequence);
    query rows are numbered r = (b * H + h) * T + t for position t of sequence b, head h.

    query_rows: int64 (nnz,): query_rows[cu_seqlens[g]:cu_seqlens[g + 1]] are the rows routed to key block g,
        in increasing order.
    cu_seqlens: int64 (B * H * n + 1,): cumulative counts, cu_seqlens[0] = 0 and cu_seqlens[-1] = nnz.
    """

    query_rows: torch.Tensor
    cu_seqlens: torch.Tensor


def mean_pool_blocks(k: torch.Tensor, block_size: int) -> torch.Tensor:
    """Block representations of the keys.

    Args:
        k: keys, (B, H, T, D), floating point.
        block_size: keys per block (see `moba.blocks`); the last block may be shorter.

    Returns:
        (B, H, n, D), n = ceil(T / block_size), dtype of k; entry j is the representation of block j of that
        sequence and head (Eq. (6)), over the keys the block holds.

    Raises:
        ValueError: if block_size is not a positive integer or k is not 4-d.
    """
    check_block_size(block_size)
    if k.dim() != 4:
        raise ValueError("k must be (B, H, T, D)")
    b, h, t, d = k.shape
    n = num_blocks(t, block_size)
    padded = F.pad(k, (0, 0, 0, n * block_size - t))
    sums = padded.reshape(b, h, n, block_size, d).sum(dim=3)
    counts = block_lengths(t, block_size).to(device=k.device, dtype=k.dtype)
    return sums / counts[:, None]


def select_blocks(q: torch.Tensor, k: torch.Tensor, block_size: int, top_k: int) -> torch.Tensor:
    """MoBA's gate: which key blocks every query attends to.

    Args:
        q: queries, (B, H, T, D), floating point.
        k: keys, (B, H, T, D), same dtype as q.
        block_size: keys per block; the last block may be shorter.
        top_k: number of blocks a query attends to, its own block included; a query with fewer eligible
            blocks attends to all of them.

    Returns:
        Bool (B, H, T, n), n = ceil(T / block_size): entry [b, h, t, j] is True if the query at position t of
        sequence b, head h attends to key block j. Every (b, h, t) is gated independently.

    Raises:
        ValueError: if block_size or top_k is not a positive integer, or q and k differ in shape or are not 4-d.
    """
    check_block_size(block_size)
    if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
        raise ValueError(f"top_k must be a positive integer, got {top_k!r}")
    if q.dim() != 4 or q.shape != k.shape:
        raise ValueError("q and k must both be (B, H, T, D)")
    scores = q @ mean_pool_blocks(k, block_size).transpose(-1, -2)
    t, n = scores.shape[-2], scores.shape[-1]
    own = block_of(torch.arange(t, device=q.device), block_size)[:, None]
    blocks = torch.arange(n, device=q.device)[None, :]
    future, current = blocks > own, blocks == own
    scores = scores.masked_fill(future, float("-inf")).masked_fill(current, float("inf"))
    chosen = scores.topk(min(top_k, n), dim=-1).indices
    selected = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, chosen, True)
    return selected & ~future


def moba_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int, top_k: int,
                   scale: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal MoBA over a batch of multi-head sequences, as a mask over full attention.

    Args:
        q: queries, (B, H, T, D), floating point.
        k: keys, (B, H, T, D), same dtype as q.
        v: values, (B, H, T, Dv), same dtype as q.
        block_size: keys per block; the last block may be shorter.
        top_k: number of blocks each query attends to, its own block included.
        scale: multiplier of the query-key dot products in the attention; None means 1/sqrt(D).

    Returns:
        (out, lse), both of q's dtype and computed in it throughout (float32 or float64; no up- or down-cast):
        out (B, H, T, Dv); lse (B, H, T), the natural log of each query's
        softmax normaliser over the keys it attends to, log sum_j exp(scale * q . k_j). Both differentiable
        with respect to q, k and v.

    Raises:
        ValueError: as `select_blocks`, or if v does not match q in (B, H, T) or the dtypes differ.
    """
    check_attention_inputs(q, k, v)
    selected = select_blocks(q, k, block_size, top_k)
    t = q.shape[-2]
    positions = torch.arange(t, device=q.device)
    allowed = selected[..., block_of(positions, block_size)]
    allowed = allowed & (positions[None, :] <= positions[:, None])
    return masked_attention(q, k, v, allowed, default_scale(q.shape[-1], scale))


def route_queries(selected: torch.Tensor, block_size: int) -> VarlenLayout:
    """The MoBA part of Algorithm 1's layout: for every key block, the queries routed to it other than the
    block's own queries (those are served by the self-attention part).

    Args:
        selected: bool (B, H, T, n), as returned by `select_blocks`.
        block_size: keys per block; n must be ceil(T / block_size).

    Returns:
        The `VarlenLayout` of the routed (query, key block) pairs.

    Raises:
        ValueError: if selected is not a 4-d bool tensor with n = ceil(T / block_size), or block_size is not a
            positive integer.
    """
    check_block_size(block_size)
    if selected.dtype != torch.bool or selected.dim() != 4:
        raise ValueError("selected must be a bool (B, H, T, n) tensor")
    b, h, t, n = selected.shape
    if n != num_blocks(t, block_size):
        raise ValueError(f"selected has {n} blocks, expected ceil({t} / {block_size})")
    own = block_of(torch.arange(t, device=selected.device), block_size)[:, None]
    routed = selected & (torch.arange(n, device=selected.device)[None, :] != own)
    per_block = routed.transpose(-1, -2).reshape(b * h * n, t)
    block_ids, positions = per_block.nonzero(as_tuple=True)
    query_rows = torch.div(block_ids, n, rounding_mode="floor") * t + positions
    cu_seqlens = torch.zeros(b * h * n + 1, dtype=torch.int64, device=selected.device)
    cu_seqlens[1:] = per_block.sum(dim=1).cumsum(0)
    return VarlenLayout(query_rows, cu_seqlens)


def moba_attention_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int, top_k: int,
                          scale: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal MoBA in the gathered (varlen) form of Algorithm 1.

    Same arguments, returns and errors as `moba_attention`, whose results it reproduces; computed in q's dtype as
    well (no up- or down-cast).
    """
    check_attention_inputs(q, k, v)
    selected = select_blocks(q, k, block_size, top_k)
    layout = route_queries(selected, block_size)
    scale = default_scale(q.shape[-1], scale)
    b, h, t, d = q.shape
    dv = v.shape[-1]
    n = selected.shape[-1]
    pad = n * block_size - t
    q_blocks = F.pad(q, (0, 0, 0, pad)).reshape(b * h * n, block_size, d)
    k_blocks = F.pad(k, (0, 0, 0, pad)).reshape(b * h * n, block_size, d)
    v_blocks = F.pad(v, (0, 0, 0, pad)).reshape(b * h * n, block_size, dv)
    valid = (torch.arange(n * block_size, device=q.device) < t).reshape(n, block_size)
    valid = valid.repeat(b * h, 1)
    inside = torch.ones(block_size, block_size, dtype=torch.bool, device=q.device).tril()
    self_out, self_lse = masked_attention(q_blocks, k_blocks, v_blocks, inside & valid[:, None, :], scale)
    self_out = self_out.reshape(b * h, n * block_size, dv)[:, :t].reshape(b * h * t, dv)
    self_lse = self_lse.reshape(b * h, n * block_size)[:, :t].reshape(b * h * t)

    counts = layout.cu_seqlens[1:] - layout.cu_seqlens[:-1]
    pair_block = torch.repeat_interleave(torch.arange(b * h * n, device=q.device), counts)
    pair_q = q.reshape(b * h * t, d)[layout.query_rows][:, None, :]
    moba_out, moba_lse = masked_attention(pair_q, k_blocks[pair_block], v_blocks[pair_block],
                                          valid[pair_block][:, None, :], scale)

    rows = torch.cat([torch.arange(b * h * t, device=q.device), layout.query_rows])
    part_lse = torch.cat([self_lse, moba_lse[:, 0]])
    part_out = torch.cat([self_out, moba_out[:, 0]])
    peak = torch.full((b * h * t,), float("-inf"), dtype=q.dtype, device=q.device)
    peak = peak.scatter_reduce(0, rows, part_lse.detach(), reduce="amax")
    weight = torch.exp(part_lse - peak[rows])
    total = torch.zeros(b * h * t, dtype=q.dtype, device=q.device).index_add(0, rows, weight)
    out = torch.zeros(b * h * t, dv, dtype=q.dtype, device=q.device).index_add(0, rows, weight[:, None] * part_out)
    out = out / total[:, None]
    lse = peak + torch.log(total)
    return out.reshape(b, h, t, dv), lse.reshape(b, h, t)
