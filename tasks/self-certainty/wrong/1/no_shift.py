# WRONG: the logits at a response token's own position are taken as its distribution (no next-token shift)
def response_scores(logits: torch.Tensor, batch: Batch, measure: Measure) -> torch.Tensor:
    """Confidence of the response of each row of a batch.

    Args:
        logits: (B, T, V) float tensor, the model's logits for batch.input_ids (the layout of `ToyLM.forward`).
        batch: the padded batch of prompts and responses the logits were computed from.
        measure: one of bon.config.MEASURES.

    Returns:
        (B,) tensor of the logits' dtype: the confidence of each row's response under `measure`; a larger value
        means a more confident response.

    Raises:
        ValueError: if the measure is unknown, the logits' shape does not match the batch, or a row has no
            response token.
    """
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}")
    if logits.dim() != 3 or tuple(logits.shape[:2]) != tuple(batch.input_ids.shape):
        raise ValueError(f"logits of shape {tuple(logits.shape)} do not match the batch")
    lengths = batch.response_mask.sum(dim=1)
    if bool((lengths == 0).any()):
        raise ValueError("every row needs at least one response token")
    logp = torch.log_softmax(logits, dim=-1)
    if measure == "self_certainty":
        terms = -(logp + math.log(logp.shape[-1])).mean(dim=-1)
    elif measure in ("entropy", "distributional_perplexity"):
        terms = -(logp.exp() * logp).sum(dim=-1)
    else:
        terms = logp.gather(-1, batch.input_ids.unsqueeze(-1)).squeeze(-1)
    mask = batch.response_mask
    mean = torch.where(mask, terms, torch.zeros_like(terms)).sum(dim=1) / lengths.to(terms.dtype)
    if measure == "entropy":
        return -mean
    if measure == "distributional_perplexity":
        return -torch.exp(mean)
    if measure == "perplexity":
        return -torch.exp(-mean)
    return mean
