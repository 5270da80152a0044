# wrong: surprise detached from the graph: the outer loop cannot train through the inner update
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
    per_token = vmap(grad(associative_loss), in_dims=(None, 0, 0))
    with torch.no_grad():
        g = vmap(per_token, in_dims=(0, 0, 0))([w.detach() for w in weights], k.detach(), v.detach())
    return list(g)
