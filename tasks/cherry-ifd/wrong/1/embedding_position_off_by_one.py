# Wrong: the hidden state one position before the last instruction token (index |Q| - 1 of [BOS] + Q) instead of the average over the instruction
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
    mask[:, 0] = False
    weights = mask.to(hidden.dtype)
    last = mask.sum(dim=1) - 1
    return hidden[torch.arange(len(samples)), last]
