# wrong: the positional embedding matrix is not orthogonalized
@torch.no_grad()
def orthogonalize_weights(model: TinyChatLM, direction: torch.Tensor) -> TinyChatLM:
    """Weight orthogonalization of the model with respect to `direction` (d_model,), in place.

    Returns the model."""
    r = (direction / direction.norm()).to(model.embed.weight.dtype)
    for emb in (model.embed,):
        w = emb.weight  # (n, d_model): each row is written to the stream
        w -= (w @ r).unsqueeze(1) * r
    for block in model.blocks:
        for lin in (block.attn.out, block.mlp.down):
            w = lin.weight  # (d_model, d_in): output = w @ x
            w -= r.unsqueeze(1) * (r @ w).unsqueeze(0)
    return model
