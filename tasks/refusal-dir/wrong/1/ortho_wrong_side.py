# wrong: orthogonalization of the input side of the output matrices (W - W r_hat r_hat^T)
@torch.no_grad()
def orthogonalize_weights(model: TinyChatLM, direction: torch.Tensor) -> TinyChatLM:
    """Weight orthogonalization of the model with respect to `direction` (d_model,), in place.

    Returns the model."""
    r = (direction / direction.norm()).to(model.embed.weight.dtype)
    for emb in (model.embed, model.pos_embed):
        w = emb.weight  # (n, d_model): each row is written to the stream
        w -= (w @ r).unsqueeze(1) * r
    for block in model.blocks:
        for lin in (block.attn.out, block.mlp.down):
            w = lin.weight  # (d_model, d_in): output = w @ x
            w -= (w @ r).unsqueeze(1) * r if w.shape[1] == r.shape[0] else 0 * w
    return model
