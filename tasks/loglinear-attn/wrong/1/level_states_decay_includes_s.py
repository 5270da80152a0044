# wrong: the final level states decay each key by a_s too
def level_states(k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor, num_levels: int) -> torch.Tensor:
    """The level states S^(l) of the last of T positions, from the whole sequence.

    k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0); num_levels: number of levels.
    Computed in the inputs' dtype.
    Returns (B, H, num_levels, K, V) in the layout of `loglin.cache.LevelCache`.
    Raises ValueError when T > 2 ** (num_levels - 1).
    """
    B, T, H, K = k.shape
    if T > 2 ** (num_levels - 1):
        raise ValueError(f"{T} positions need more than {num_levels} levels")
    total = torch.cumsum(log_a, dim=1)  # (B, T, H)
    decay = (total[:, -1:] - total + log_a).exp()  # (B, T, H)
    last_lev = fenwick_levels(T, k.device)[-1]  # (T,)
    onehot = F.one_hot(last_lev, num_levels).to(k.dtype)  # (T, num_levels)
    return torch.einsum("bsh,sl,bshk,bshv->bhlkv", decay, onehot, k, v)
