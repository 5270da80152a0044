# wrong: the interaction applies the transition A_s of the key position too
def delta_interactions(q: torch.Tensor, k: torch.Tensor, log_a: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    """The interaction matrix G of Gated DeltaNet.

    q, k: (B, T, H, K); log_a: (B, T, H) log of the decays a_t (<= 0); beta: (B, T, H) write strengths.
    Computed in the inputs' dtype.
    Returns (B, H, T, T): entry [b, h, t, s] is G_{t,s} for s <= t and 0 for s > t.
    Raises ValueError on mismatched shapes.
    """
    if q.dim() != 4 or k.shape != q.shape:
        raise ValueError("q and k must both have shape (B, T, H, K)")
    B, T, H, K = q.shape
    if log_a.shape != (B, T, H) or beta.shape != (B, T, H):
        raise ValueError("log_a and beta must have shape (B, T, H)")
    a = log_a.exp()
    P = q.new_zeros(B, H, T, K)  # row s: A_t ... A_{s+1} beta_s k_s after position t
    G = q.new_zeros(B, H, T, T)
    for t in range(T):
        kt = k[:, t][:, :, None, :]  # (B, H, 1, K)
        P[:, :, t] = beta[:, t, :, None] * k[:, t]
        P = a[:, t, :, None, None] * (P - beta[:, t, :, None, None] * kt * (P * kt).sum(3, keepdim=True))
        G[:, :, t] = torch.einsum("bhk,bhsk->bhs", q[:, t], P)
    return G
