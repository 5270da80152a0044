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
    seq_len, num_heads, head_dim = q.shape
    num_kv_heads = k_slc.shape[1]
    group = num_heads // num_kv_heads
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    num_cmp = k_cmp.shape[0]
    num_slc = -(-seq_len // slc_block_size)

    # overlap[i, j]: positions shared by compressed block i and selection block j. The description
    # counts them in units of d; that common factor does not change the ranking, so it is left out.
    overlap = q.new_zeros(num_cmp, num_slc)
    for i in range(num_cmp):
        lo, hi = i * cmp_stride, i * cmp_stride + cmp_block_size
        for j in range(num_slc):
            shared = min(hi, (j + 1) * slc_block_size) - max(lo, j * slc_block_size)
            overlap[i, j] = max(shared, 0)

    selection = torch.zeros(seq_len, num_kv_heads, num_slc, dtype=torch.bool)
    rows = []
    for t in range(seq_len):
        visible = max((t + 1 - cmp_block_size) // cmp_stride + 1, 0)  # complete blocks ending at or before t
        current = t // slc_block_size
        forced = set(range(min(num_init_blocks, current + 1)))
        forced |= set(range(max(current - num_local_blocks + 1, 0), current + 1))
        row = [None] * num_heads
        for g in range(num_kv_heads):
            heads = range(g * group, (g + 1) * group)
            scores = q.new_zeros(current + 1)
            for h in heads:
                # compressed branch: its attention probabilities also score the selection blocks
                # (with no visible block the softmax is empty and both products are zero)
                probs = torch.softmax(scale * (k_cmp[:visible, g] @ q[t, h]), dim=0)
                o_cmp = probs @ v_cmp[:visible, g]
                scores = scores + probs.detach() @ overlap[:visible, : current + 1]
                # sliding-window branch
                start = max(0, t - window_size + 1)
                probs = torch.softmax(scale * (k_win[start : t + 1, g] @ q[t, h]), dim=0)
                o_win = probs @ v_win[start : t + 1, g]
                row[h] = gates[t, h, 0] * o_cmp + gates[t, h, 2] * o_win

            # top-n blocks shared by the group: forced blocks, then the best-scored others
            # (ties broken in favour of the lower block index)
            ranking = sorted(range(current + 1), key=lambda j: (-float(scores[j]), j))
            chosen = set(forced)
            for j in ranking:
                if len(chosen) >= num_selected:
                    break
                chosen.add(j)
            selection[t, g, sorted(chosen)] = True
            keys = [p for j in sorted(chosen) for p in range(j * slc_block_size, (j + 1) * slc_block_size)]
            keys = [p for p in keys if p <= t]
            for h in heads:
                probs = torch.softmax(scale * (k_slc[keys, g] @ q[t, h]), dim=0)
                row[h] = row[h] + gates[t, h, 1] * (probs @ v_slc[keys, g])
        rows.append(torch.stack(row))
    out = torch.stack(rows)

    if return_selection:
        return out, selection
    return out
