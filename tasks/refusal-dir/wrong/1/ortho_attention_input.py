# wrong: orthogonalizes the matrices that read from the stream (qkv, MLP up) instead of those that write to it
@torch.no_grad()
def orthogonalize_weights(model: TinyChatLM, direction: torch.Tensor) -> TinyChatLM:
    """Weight orthogonalization of the model with respect to `direction` (d_model,), in place.

    Returns the model."""
    r = (direction / direction.norm()).to(model.embed.weight.dtype)
    for emb in (model.embed, model.pos_embed):
        w = emb.weight  # (n, d_model): each row is written to the stream
        w -= (w @ r).unsqueeze(1) * r
    for block in model.blocks:
        for lin in (block.attn.qkv, block.mlp.up):
            w = lin.weight  # (d_out, d_model): reads the stream
            w -= (w @ r).unsqueeze(1) * r
    return model
