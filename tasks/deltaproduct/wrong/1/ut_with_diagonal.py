# wrong: the lower-triangular matrix of the UT transform includes the diagonal beta_t k_t^T k_t
def chunk_gated_delta_rule(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_gate: torch.Tensor | None = None,
    chunk_size: int = 64,
    initial_state: torch.Tensor | None = None,
    output_final_state: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The (gated) delta rule over a sequence, computed chunk by chunk.

    Args:
        q: (B, T, H, K) queries.
        k: (B, T, H, K) keys.
        v: (B, T, H, V) values.
        beta: (B, T, H) step sizes.
        log_gate: (B, T, H) log of the forget gate of each step, or None for no gate.
        chunk_size: number of steps per chunk.
        initial_state: (B, H, K, V) state before the first step, or None for zeros.
        output_final_state: whether to return the state after the last step.

    All tensors share one floating dtype; the outputs are in that dtype.

    Returns:
        (o, final_state): o of shape (B, T, H, V), the output of every step; final_state of shape (B, H, K, V),
        or None when output_final_state is false.

    Raises:
        ValueError: if chunk_size < 1 or the shapes do not agree.
    """
    B, T, H, K = k.shape
    V = v.shape[-1]
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    if q.shape != k.shape or v.shape[:3] != (B, T, H) or beta.shape != (B, T, H):
        raise ValueError("q, k, v and beta do not agree in shape")
    if log_gate is not None and log_gate.shape != (B, T, H):
        raise ValueError(f"log_gate has shape {tuple(log_gate.shape)}, expected {(B, T, H)}")
    if initial_state is not None and initial_state.shape != (B, H, K, V):
        raise ValueError(f"initial_state has shape {tuple(initial_state.shape)}, expected {(B, H, K, V)}")
    C = chunk_size
    n = math.ceil(T / C)
    pad = n * C - T
    gate = log_gate if log_gate is not None else beta.new_zeros(B, T, H)
    # (B, H, T, .) padded with identity steps (beta = 0, no decay) to a multiple of C, then split into chunks
    q_, k_, v_ = (F.pad(x.transpose(1, 2), (0, 0, 0, pad)).reshape(B, H, n, C, -1) for x in (q, k, v))
    b_, g_ = (F.pad(x.transpose(1, 2), (0, pad)).reshape(B, H, n, C) for x in (beta, gate))
    S = k.new_zeros(B, H, K, V) if initial_state is None else initial_state
    eye = torch.eye(C, dtype=k.dtype, device=k.device)
    causal = torch.ones(C, C, dtype=torch.bool, device=k.device).tril()
    strict = causal.tril(-1)
    out = []
    for c in range(n):
        qc, kc, vc, bc = q_[:, :, c], k_[:, :, c], v_[:, :, c], b_[:, :, c]
        cum = g_[:, :, c].cumsum(-1)  # log of gamma_t, the product of the gates up to t within the chunk
        decay = (cum[..., :, None] - cum[..., None, :]).masked_fill(~causal, float("-inf")).exp()
        # UT transform: (I + strict_tril(diag(beta) (K K^T * decay))) U = diag(beta) (V - diag(gamma) K S)
        lower = (bc[..., None] * (kc @ kc.transpose(-1, -2)) * decay).masked_fill(~causal, 0.0)
        rhs = bc[..., None] * (vc - cum.exp()[..., None] * (kc @ S))
        u = torch.linalg.solve_triangular(eye + lower, rhs, upper=False)
        scores = (qc @ kc.transpose(-1, -2) * decay).masked_fill(~causal, 0.0)
        out.append(cum.exp()[..., None] * (qc @ S) + scores @ u)
        last = cum[..., -1:]
        S = last.exp()[..., None] * S + (kc * (last - cum).exp()[..., None]).transpose(-1, -2) @ u
    o = torch.stack(out, dim=2).reshape(B, H, n * C, V)[:, :, :T].transpose(1, 2)
    return o, (S if output_final_state else None)
