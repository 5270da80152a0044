# WRONG: the encoder keeps the decoder's causal attention
def encode(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, pooling: str = "mean") -> torch.Tensor:
    hidden = model(input_ids, attention_mask)
    return pool(hidden, attention_mask, pooling)
