# wrong: the decay mask multiplies a_s too (product from r = s instead of s + 1)
def loglinear_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                        lam: torch.Tensor) -> torch.Tensor:
    """Log-linear Mamba-2 attention in its quadratic (masked) form.

    q, k: (B, T, H, K); v: (B, T, H, V); log_a: (B, T, H) log of the decays a_t (<= 0);
    lam: (B, T, H, num_levels) level weights. Computed in the inputs' dtype.
    Returns o: (B, T, H, V).
    Raises ValueError on mismatched shapes or when T > 2 ** (num_levels - 1).
    """
    B, T, H, K, V, NL = _check_inputs(q, k, v, log_a, lam)
    mh = hierarchical_mask(lam)
    cum = torch.cumsum(log_a, dim=1).permute(0, 2, 1)  # (B, H, T)
    cum0 = cum - log_a.permute(0, 2, 1)
    diff = (cum[:, :, :, None] - cum0[:, :, None, :]).masked_fill(~causal_mask(T, q.device), float("-inf"))
    scores = torch.einsum("bthk,bshk->bhts", q, k) * diff.exp() * mh
    return torch.einsum("bhts,bshv->bthv", scores, v)
