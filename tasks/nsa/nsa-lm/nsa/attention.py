"""Naive (loop-based) Native Sparse Attention for a single sequence.

Shapes: T tokens, H query heads, G key/value heads (GQA: query head h reads key/value head
h // (H // G)), key width dk, value width dv. Positions are 0-based.
"""

import math

import torch
from torch import Tensor


def nsa_attention(
    q: Tensor,
    k_cmp: Tensor,
    v_cmp: Tensor,
    k_slc: Tensor,
    v_slc: Tensor,
    k_win: Tensor,
    v_win: Tensor,
    gates: Tensor,
    *,
    cmp_block_size: int,
    cmp_stride: int,
    slc_block_size: int,
    num_selected: int,
    window_size: int,
    num_init_blocks: int = 1,
    num_local_blocks: int = 2,
    scale: float | None = None,
    return_selection: bool = False,
) -> Tensor | tuple[Tensor, Tensor]:
    """Causal NSA output for one sequence: gated sum of compressed, selected and sliding-window attention.

    Args:
        q: queries, (T, H, dk).
        k_cmp, v_cmp: compressed keys/values, (N_cmp, G, dk) and (N_cmp, G, dv). Compressed block i
            summarises positions [i * cmp_stride, i * cmp_stride + cmp_block_size); it is visible to
            the query at position t only when the whole block lies at or before t.
        k_slc, v_slc: token-level keys/values of the selection branch, (T, G, dk) and (T, G, dv).
        k_win, v_win: token-level keys/values of the sliding-window branch, (T, G, dk) and (T, G, dv).
        gates: per-token, per-head gate values in [0, 1], (T, H, 3), ordered (compressed, selected,
            window).
        cmp_block_size, cmp_stride: l and d of the compression blocks (d divides l).
        slc_block_size: l', the selection block size (d divides l'); selection block j covers
            positions [j * l', (j + 1) * l').
        num_selected: n, the number of selection blocks kept per query and key/value head, forced
            blocks included (forced blocks are kept even if they alone outnumber n).
        window_size: w; the window branch attends positions max(0, t - w + 1) .. t.
        num_init_blocks: selection blocks 0 .. num_init_blocks - 1 are always selected.
        num_local_blocks: the block containing t and the num_local_blocks - 1 blocks before it are
            always selected.
        scale: softmax temperature multiplying q . k; defaults to 1 / sqrt(dk).
        return_selection: also return the selection mask.

    Returns:
        The output, (T, H, dv), in q's dtype; with ``return_selection`` also a bool mask
        (T, G, ceil(T / l')) telling which selection blocks each query position uses for each
        key/value head. A branch with no visible key (the compressed branch before the first
        complete block) contributes zero.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
