# Wrong: ignores the always-selected initial and local blocks: pure top-n on the scores.
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
    seq_len, num_heads, head_dim = q.shape
    num_kv_heads = k_slc.shape[1]
    group = num_heads // num_kv_heads
    if scale is None:
        scale = 1.0 / math.sqrt(head_dim)
    num_cmp = k_cmp.shape[0]
    num_slc = -(-seq_len // slc_block_size)

    # overlap[i, j]: positions shared by compressed block i and selection block j, in units of d
    overlap = q.new_zeros(num_cmp, num_slc)
    for i in range(num_cmp):
        lo, hi = i * cmp_stride, i * cmp_stride + cmp_block_size
        for j in range(num_slc):
            shared = min(hi, (j + 1) * slc_block_size) - max(lo, j * slc_block_size)
            overlap[i, j] = max(shared, 0) / cmp_stride

    selection = torch.zeros(seq_len, num_kv_heads, num_slc, dtype=torch.bool)
    rows = []
    for t in range(seq_len):
        visible = (t + 1 - cmp_block_size) // cmp_stride + 1 if t + 1 >= cmp_block_size else 0
        current = t // slc_block_size
        forced = set(range(min(num_init_blocks, current + 1)))
        forced |= set(range(max(current - num_local_blocks + 1, 0), current + 1))
        row = [None] * num_heads
        for g in range(num_kv_heads):
            heads = range(g * group, (g + 1) * group)
            scores = q.new_zeros(current + 1)
            for h in heads:
                # compressed branch: its attention probabilities also score the selection blocks
                o_cmp = q.new_zeros(v_cmp.shape[-1])
                if visible > 0:
                    probs = torch.softmax(scale * (k_cmp[:visible, g] @ q[t, h]), dim=0)
                    o_cmp = probs @ v_cmp[:visible, g]
                    scores = scores + probs.detach() @ overlap[:visible, : current + 1]
                # sliding-window branch
                start = max(0, t - window_size + 1)
                probs = torch.softmax(scale * (k_win[start : t + 1, g] @ q[t, h]), dim=0)
                o_win = probs @ v_win[start : t + 1, g]
                row[h] = gates[t, h, 0] * o_cmp + gates[t, h, 2] * o_win

            # top-n blocks shared by the group: forced blocks, then the best-scored others
            # (a stable sort breaks ties in favour of the lower block index)
            chosen = set()
            for j in torch.sort(scores, descending=True, stable=True).indices.tolist():
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
