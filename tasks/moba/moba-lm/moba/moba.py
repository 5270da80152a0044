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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


def moba_attention_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int, top_k: int,
                          scale: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal MoBA in the gathered (varlen) form of Algorithm 1.

    Same arguments, returns and errors as `moba_attention`, whose results it reproduces; computed in q's dtype as
    well (no up- or down-cast).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
