# WRONG: bias corrections with exponent step instead of step + 1
def adam_directions(grads: torch.Tensor, state: AdamState, names: list[str]) -> torch.Tensor:
    """The Adam update direction Gamma(z, theta) of Eq. (4) for each row of `grads`.

    Args:
        grads: (n, P) flattened per-example gradients (as `example_gradients` returns them).
        state: Adam's state at the checkpoint.
        names: the parameter names in flattening order (model.trainable_names()).
    Returns:
        (n, P) tensor, same dtype as `grads`.
    """
    m = torch.cat([state.exp_avg[n].reshape(-1) for n in names]).to(grads.dtype)
    v = torch.cat([state.exp_avg_sq[n].reshape(-1) for n in names]).to(grads.dtype)
    beta1, beta2 = state.betas
    t = max(state.step, 1)
    m_next = (beta1 * m + (1 - beta1) * grads) / (1 - beta1**t)
    v_next = (beta2 * v + (1 - beta2) * grads**2) / (1 - beta2**t)
    return m_next / (v_next.sqrt() + state.eps)
