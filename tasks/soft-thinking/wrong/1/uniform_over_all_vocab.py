# WRONG: the uniform mixture averages every token embedding, not only the kept tokens
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
        kept = torch.ones_like(ct)
        return (kept @ weight) / kept.sum(dim=-1, keepdim=True)
    raise ValueError(f"unknown mixture {mixture!r}")
