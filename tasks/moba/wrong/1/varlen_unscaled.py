# the varlen form uses scale 1 by default instead of 1/sqrt(D)
def moba_attention_varlen(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, block_size: int, top_k: int,
                          scale: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal MoBA in the gathered (varlen) form of Algorithm 1.

    Same arguments, returns and errors as `moba_attention`, whose results it reproduces.
    """
    check_attention_inputs(q, k, v)
    selected = select_blocks(q, k, block_size, top_k)
    layout = route_queries(selected, block_size)
    scale = 1.0 if scale is None else scale
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
