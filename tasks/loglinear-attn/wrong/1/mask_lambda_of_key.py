# wrong: the hierarchical mask takes the level weight of the key position s instead of the query t
def hierarchical_mask(lam: torch.Tensor) -> torch.Tensor:
    """The hierarchical mask M^H built from the level weights.

    lam: (B, T, H, num_levels) level weights lambda_t^(l).
    Returns (B, H, T, T) in lam's dtype: entry [b, h, t, s] is lambda_t^(l(t, s)) for s <= t and 0 for s > t.
    Raises ValueError when T > 2 ** (num_levels - 1).
    """
    B, T, H, NL = lam.shape
    if T > 2 ** (NL - 1):
        raise ValueError(f"{T} positions need more than {NL} levels")
    lev = fenwick_levels(T, lam.device)
    idx = lev.clamp(min=0)
    lam_h = lam.permute(0, 2, 1, 3)  # (B, H, T, NL)
    keyed = lam_h[:, :, None, :, :].expand(B, H, T, T, NL)  # [.., t, s, l] = lambda_s^(l)
    m = torch.gather(keyed, 4, idx[:, :, None].expand(B, H, T, T, 1))[..., 0]
    return m.masked_fill(lev < 0, 0.0)
