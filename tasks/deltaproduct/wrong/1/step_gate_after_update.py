# wrong: decoding: the gate applied to the state after the n_h steps
def delta_product_step(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_gate: torch.Tensor | None,
    state: torch.Tensor,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One token of (gated) DeltaProduct applied to a recurrent state (decoding).

    Args:
        q: (B, H, K) the token's query.
        k: (B, n_h, H, K) its keys.
        v: (B, n_h, H, V) its values.
        beta: (B, n_h, H) its step sizes.
        log_gate: (B, H) log of its forget gate, or None for no gate.
        state: (B, H, K, V) the state before the token.

    All tensors share one floating dtype; the outputs are in that dtype.

    Returns:
        (o, new_state): o of shape (B, H, V), the token's output; new_state of shape (B, H, K, V), the state
        after the token.

    Raises:
        ValueError: if the shapes do not agree.
    """
    if k.dim() != 4:
        raise ValueError(f"k must have shape (B, n_h, H, K), got {tuple(k.shape)}")
    B, n_h, H, K = k.shape
    V = v.shape[-1]
    if q.shape != (B, H, K) or v.shape[:3] != (B, n_h, H) or beta.shape != (B, n_h, H):
        raise ValueError("q, k, v and beta do not agree in shape")
    if state.shape != (B, H, K, V) or (log_gate is not None and log_gate.shape != (B, H)):
        raise ValueError("state or log_gate does not agree in shape")
    S = state
    for j in range(n_h):
        kj, bj = k[:, j], beta[:, j, :, None, None]
        read = torch.einsum("bhk,bhkv->bhv", kj, S)
        S = S + bj * kj[..., :, None] * (v[:, j] - read)[..., None, :]
    if log_gate is not None:
        S = log_gate.exp()[..., None, None] * S
    return torch.einsum("bhk,bhkv->bhv", q, S), S
