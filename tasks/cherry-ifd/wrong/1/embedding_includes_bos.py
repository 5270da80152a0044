# Wrong: the instruction embedding averages over BOS as well
@torch.no_grad()
def instruction_embeddings(model: TinyLM, samples: list[Sample]) -> torch.Tensor:
    """Embedding of each sample's instruction: the average of the model's last hidden states over the
    instruction's tokens, the model being run on [BOS] + Q.

    Args:
        model: the language model.
        samples: N samples.

    Returns:
        float64 (N, dim).
    """
    ids, mask = pad([[BOS_ID, *s.instruction] for s in samples])
    _, hidden = model(ids)
    weights = mask.to(hidden.dtype)
    return (hidden * weights[..., None]).sum(dim=1) / weights.sum(dim=1, keepdim=True)
