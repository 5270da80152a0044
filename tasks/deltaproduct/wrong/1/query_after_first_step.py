# wrong: the query reads the state after the token's first Householder step
def chunk_delta_product(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    beta: torch.Tensor,
    log_gate: torch.Tensor | None = None,
    chunk_size: int = 64,
    initial_state: torch.Tensor | None = None,
    output_final_state: bool = False,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """(Gated) DeltaProduct over a sequence of L tokens, in its chunkwise-parallel form.

    Args:
        q: (B, L, H, K) queries, one per token.
        k: (B, L, n_h, H, K) keys, n_h per token.
        v: (B, L, n_h, H, V) values, n_h per token.
        beta: (B, L, n_h, H) step sizes, n_h per token.
        log_gate: (B, L, H) log of the forget gate of each token, or None for no gate.
        chunk_size: number of steps per chunk of the chunkwise computation.
        initial_state: (B, H, K, V) state before the first token, or None for zeros.
        output_final_state: whether to return the state after the last token.

    All tensors share one floating dtype; the outputs are in that dtype.

    Returns:
        (o, final_state): o of shape (B, L, H, V), the output of every token; final_state of shape (B, H, K, V),
        or None when output_final_state is false.

    Raises:
        ValueError: if chunk_size < 1 or the shapes do not agree.
    """
    if k.dim() != 5:
        raise ValueError(f"k must have shape (B, L, n_h, H, K), got {tuple(k.shape)}")
    B, L, n_h, H, K = k.shape
    V = v.shape[-1]
    if q.shape != (B, L, H, K) or v.shape[:4] != (B, L, n_h, H) or beta.shape != (B, L, n_h, H):
        raise ValueError("q, k, v and beta do not agree in shape")
    if log_gate is not None and log_gate.shape != (B, L, H):
        raise ValueError(f"log_gate has shape {tuple(log_gate.shape)}, expected {(B, L, H)}")
    # token i's j-th Householder step becomes step i * n_h + j of a sequence n_h times longer; the query reads
    # the state after the token's last step, and the gate decays the state before its first step
    q_long = q.new_zeros(B, L, n_h, H, K)
    q_long[:, :, 0] = q
    g_long = None
    if log_gate is not None:
        g_long = log_gate.new_zeros(B, L, n_h, H)
        g_long[:, :, 0] = log_gate
        g_long = g_long.reshape(B, L * n_h, H)
    o, state = chunk_gated_delta_rule(
        q_long.reshape(B, L * n_h, H, K), k.reshape(B, L * n_h, H, K), v.reshape(B, L * n_h, H, V),
        beta.reshape(B, L * n_h, H), g_long, chunk_size, initial_state, output_final_state)
    return o.reshape(B, L, n_h, H, V)[:, :, 0], state
