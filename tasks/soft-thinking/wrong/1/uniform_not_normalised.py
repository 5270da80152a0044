# WRONG: the uniform mixture sums the kept embeddings without dividing by their number
def concept_embedding(concept: torch.Tensor, weight: torch.Tensor, mixture: str = "weighted") -> torch.Tensor:
    """The input embedding of concept tokens.

    Args:
        concept: (..., vocab_size) concept tokens (probabilities over the vocabulary).
        weight: (vocab_size, d_model) the token embedding matrix.
        mixture: "weighted" or "uniform" (SoftThinkingConfig.mixture).
    Returns:
        (..., d_model) embeddings in the dtype of `weight`.
    Raises:
        ValueError: if the mixture is unknown.
    """
    ct = concept.to(weight.dtype)
    if mixture == "weighted":
        return ct @ weight
    if mixture == "uniform":
        kept = (ct > 0).to(weight.dtype)
        return kept @ weight
    raise ValueError(f"unknown mixture {mixture!r}")
