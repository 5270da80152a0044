# a block starting at the query position counts as a future block (>= instead of >)
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
    future, current = blocks * block_size >= torch.arange(t, device=q.device)[:, None], blocks == own
    scores = scores.masked_fill(future, float("-inf")).masked_fill(current, float("inf"))
    chosen = scores.topk(min(top_k, n), dim=-1).indices
    selected = torch.zeros_like(scores, dtype=torch.bool).scatter(-1, chosen, True)
    return selected & ~future
