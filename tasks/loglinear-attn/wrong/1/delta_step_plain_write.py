# wrong: the new token enters level 0 as k v^T without its write strength beta_t
def loglinear_delta_step(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_a: torch.Tensor,
                         beta: torch.Tensor, lam: torch.Tensor, states: torch.Tensor,
                         position: int) -> tuple[torch.Tensor, torch.Tensor]:
    """One position of log-linear Gated DeltaNet on the cached level states (decoding).

    q, k: (B, H, K); v: (B, H, V); log_a, beta: (B, H); lam: (B, H, num_levels) the new position's inputs;
    states: (B, H, num_levels, K, V) the level states after the previous position (ignored when position is 0);
    position: index of the new position (from 0). Computed in the inputs' dtype; `states` is not modified.
    Returns (o, new_states): o of shape (B, H, V) and the level states after the new position.
    Raises ValueError on mismatched shapes, a negative position, or position >= 2 ** (num_levels - 1).
    """
    if q.dim() != 3 or k.shape != q.shape:
        raise ValueError("q and k must both have shape (B, H, K)")
    B, H, K = q.shape
    V = v.shape[-1]
    NL = lam.shape[-1]
    if v.shape != (B, H, V) or log_a.shape != (B, H) or beta.shape != (B, H) or lam.shape != (B, H, NL):
        raise ValueError("v, log_a, beta and lam must have shapes (B, H, V), (B, H), (B, H), (B, H, num_levels)")
    if states.shape != (B, H, NL, K, V):
        raise ValueError("states must have shape (B, H, num_levels, K, V)")
    if position < 0 or position >= 2 ** (NL - 1):
        raise ValueError(f"position {position} needs more than {NL} levels")
    if position == 0:
        S = states.new_zeros(B, H, NL, K, V)
    else:
        S = merge_levels(states, position)
        kk = k[:, :, None, :, None]  # (B, H, 1, K, 1)
        S = S - beta[:, :, None, None, None] * kk * (kk * S).sum(3, keepdim=True)
        S = S * log_a.exp()[..., None, None, None]
    S[:, :, 0] = k[..., :, None] * v[..., None, :]
    o = torch.einsum("bhl,bhk,bhlkv->bhv", lam, q, S)
    return o, S
