# WRONG: one forward pass used as both views (the dropout masks are shared)
def simcse_step(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, temperature: float,
                pooling: str = "mean") -> torch.Tensor:
    z1 = encode(model, input_ids, attention_mask, pooling)
    return simcse_loss(z1, z1, temperature)
