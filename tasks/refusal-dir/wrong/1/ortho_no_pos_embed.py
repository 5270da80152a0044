# wrong: the positional embedding matrix is not orthogonalized
@torch.no_grad()
def orthogonalize_weights(model: TinyChatLM, direction: torch.Tensor) -> TinyChatLM:
    """Weight orthogonalization of the model with respect to `direction` (d_model,), in place.

    Returns the model."""
    unit = direction / direction.norm()
    for emb in (model.embed,):
        w = emb.weight  # (n, d_model): each row is written to the stream
        r = unit.to(w.dtype)
        w -= (w @ r).unsqueeze(-1) * r
    for block in model.blocks:
        for lin in (block.attn.out, block.mlp.down):
            w = lin.weight  # (d_model, d_in): output = w @ x
            r = unit.to(w.dtype)
            w -= r.unsqueeze(-1) * (r @ w).unsqueeze(0)
    return model
