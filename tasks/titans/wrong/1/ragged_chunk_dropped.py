# wrong: the last, shorter chunk not processed when T is not a multiple of the chunk size
def chunked_update(weights: list[torch.Tensor], momentum: list[torch.Tensor], k: torch.Tensor, v: torch.Tensor,
                   alpha: torch.Tensor, eta: torch.Tensor, theta: torch.Tensor, chunk_size: int
                   ) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The parallel (chunked) form of the memory update of Section 3.2.

    Args:
        weights, momentum, k, v, alpha, eta, theta: as in `sequential_update`.
        chunk_size: tokens per chunk (the last chunk may be shorter).

    Returns:
        (states, momenta) as in `sequential_update`.

    Raises:
        ValueError: if chunk_size < 1.
    """
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    def decay_matrix(a: torch.Tensor) -> torch.Tensor:
        # D[b, t, r] = prod_{r < j <= t} a[b, j] for r <= t, else 0
        n = a.shape[1]
        idx = torch.arange(n, device=a.device)
        t, r, j = idx[:, None, None], idx[None, :, None], idx[None, None, :]
        inside = (j > r) & (j <= t)
        factors = torch.where(inside, a[:, None, None, :], torch.ones_like(a)[:, None, None, :])
        return factors.prod(-1) * (r[..., 0] <= t[..., 0]).to(a.dtype)

    T = k.shape[1]
    w, s = list(weights), list(momentum)
    states, momenta = [[] for _ in w], [[] for _ in w]
    for start in range(0, T - chunk_size + 1, chunk_size):
        sl = slice(start, min(start + chunk_size, T))
        g = token_gradients(w, k[:, sl], v[:, sl])
        e, a, th = eta[:, sl], 1 - alpha[:, sl], theta[:, sl]
        De, Da = decay_matrix(e), decay_matrix(a)
        pe, pa = torch.cumprod(e, 1), torch.cumprod(a, 1)
        for i in range(len(w)):
            # S_t = (prod_{j<=t} eta_j) S_0 - sum_{r<=t} (prod_{r<j<=t} eta_j) theta_r g_r
            S = pe[..., None, None] * s[i][:, None] - torch.einsum("btr,br,brxy->btxy", De, th, g[i])
            # M_t = (prod_{j<=t} (1 - alpha_j)) M_0 + sum_{r<=t} (prod_{r<j<=t} (1 - alpha_j)) S_r
            M = pa[..., None, None] * w[i][:, None] + torch.einsum("btr,brxy->btxy", Da, S)
            states[i].append(M)
            momenta[i].append(S)
            w[i], s[i] = M[:, -1], S[:, -1]
    return [torch.cat(x, 1) for x in states], [torch.cat(x, 1) for x in momenta]
