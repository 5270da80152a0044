# query_rows holds the position t instead of the flat row (b H + h) T + t
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
    query_rows = positions
    cu_seqlens = torch.zeros(b * h * n + 1, dtype=torch.int64, device=selected.device)
    cu_seqlens[1:] = per_block.sum(dim=1).cumsum(0)
    return VarlenLayout(query_rows, cu_seqlens)
