# wrong: the inter-chunk part keeps one state for all earlier chunks, read with the top level weight
def chunk_loglinear_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                              lam: torch.Tensor, chunk_size: int,
                              output_final_state: bool = False) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-linear Mamba-2 attention by the chunkwise-parallel algorithm, from an empty state.

    q, k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0);
    lam: (B, T, H, num_levels) level weights; chunk_size: a power of two (it need not divide T).
    Computed in the inputs' dtype.
    Returns (o, states): o of shape (B, T, H, V); states, when output_final_state, the level states after the
    last position in the layout of `loglin.cache.LevelCache` (B, H, num_levels, K, V), else None.
    Raises ValueError on mismatched shapes, when chunk_size is not a power of two, or when
    T > 2 ** (num_levels - 1).
    """
    B, T, H, K, V, NL = _check_inputs(q, k, v, log_a, lam)
    if chunk_size < 1 or chunk_size & (chunk_size - 1):
        raise ValueError(f"chunk_size must be a power of two, got {chunk_size}")
    if T > 2 ** (NL - 1):
        raise ValueError(f"{T} positions need more than {NL} levels")
    C = chunk_size
    n = -(-T // C)
    pad = n * C - T
    log_c = C.bit_length() - 1
    # level weights with room for every level a padded chunk can touch (padded positions only)
    width = max(NL, log_c + (n - 1).bit_length() + 1)
    lam_p = lam.new_zeros(B, T, H, width)
    lam_p[..., :NL] = lam

    def chunks(x: torch.Tensor) -> torch.Tensor:
        x = F.pad(x, (0, 0) * (x.dim() - 2) + (0, pad))
        return x.view(B, n, C, *x.shape[2:]).transpose(2, 3).transpose(1, 2)  # (B, H, n, C, ...)

    qc, kc, vc, lc = chunks(q), chunks(k), chunks(v), chunks(lam_p)
    cum = torch.cumsum(chunks(log_a[..., None])[..., 0], dim=3)  # (B, H, n, C), inclusive, within each chunk
    # intra-chunk: positions in one aligned chunk have the levels of their offsets
    lev = fenwick_levels(C, q.device)
    mh = torch.gather(lc, 4, lev.clamp(min=0).expand(B, H, n, C, C)).masked_fill(lev < 0, 0.0)
    diff = (cum[..., :, None] - cum[..., None, :]).masked_fill(lev < 0, float("-inf"))
    scores = torch.einsum("bhntk,bhnsk->bhnts", qc, kc) * diff.exp() * mh
    o = torch.einsum("bhnts,bhnsv->bhntv", scores, vc)
    # inter-chunk: a Fenwick tree over chunks; chunk level j >= 1 is token level log2(C) + j
    J = max(1, (n - 1).bit_length()) + 1
    S = q.new_zeros(B, H, J, K, V)
    inter = []
    for c in range(n):
        qd = qc[:, :, c] * cum[:, :, c, :, None].exp()  # (B, H, C, K)
        read = torch.einsum("bhtk,bhjkv->bhtjv", qd, S[:, :, 1:])
        w = lc[:, :, c, :, log_c + 1:log_c + J]  # (B, H, C, J - 1)
        inter.append(torch.einsum("bhtj,bhtjv->bhtv", w, read))
        if c == n - 1:
            break
        last = cum[:, :, c, -1]
        kd = kc[:, :, c] * (last[..., None] - cum[:, :, c]).exp()[..., None]
        chunk_state = torch.einsum("bhsk,bhsv->bhkv", kd, vc[:, :, c])
        S = torch.cat([chunk_state[:, :, None], S[:, :, 1:] * last.exp()[..., None, None, None]], 2)
        S = torch.cat([S[:, :, :1], torch.zeros_like(S[:, :, 1:-1]), S.sum(2, keepdim=True)], 2)
    o = o + torch.stack(inter, 2)
    o = o.transpose(1, 2).transpose(2, 3).reshape(B, n * C, H, V)[:, :T]
    if not output_final_state:
        return o, None
    return o, level_states(k, v, log_a, NL)
