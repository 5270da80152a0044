# WRONG: embeddings computed without gradient (SimCSE cannot train the model)
def encode(model, input_ids: torch.Tensor, attention_mask: torch.Tensor, pooling: str = "mean") -> torch.Tensor:
    with torch.no_grad():
        hidden = model(input_ids, attention_mask, bidirectional=True)
    return pool(hidden, attention_mask, pooling)
