# wrong: gradient of 1/2 ||M(k) - v||^2 instead of the loss as written
def token_gradients(weights: list[torch.Tensor], k: torch.Tensor, v: torch.Tensor) -> list[torch.Tensor]:
    """Gradient of each token's associative loss with respect to the memory weights, all at the same weights.

    Args:
        weights: memory weights, one tensor of shape (B, d_in, d_out) per matrix (see `titans.mlp`).
        k: keys, shape (B, n, d_key).
        v: values, shape (B, n, d_value).

    Returns:
        One tensor per weight matrix, shape (B, n, d_in, d_out): entry [b, i] is the gradient for token i of
        sequence b. Differentiable with respect to every input.
    """
    def half_loss(w, k1, v1):
        return 0.5 * associative_loss(w, k1, v1)

    per_token = vmap(grad(half_loss), in_dims=(None, 0, 0))
    return vmap(per_token, in_dims=(0, 0, 0))(list(weights), k, v)
