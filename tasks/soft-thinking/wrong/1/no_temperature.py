# WRONG: the temperature is ignored (softmax of the raw logits)
def concept_token(logits: torch.Tensor, cfg: SoftThinkingConfig) -> torch.Tensor:
    """The concept token of next-token logits.

    Args:
        logits: (..., vocab_size) float logits.
        cfg: temperature and filtering settings.
    Returns:
        (..., vocab_size) probabilities over the vocabulary (same dtype as `logits`), each row summing to one.
    """
    probs = torch.softmax(logits, dim=-1)
    vocab = logits.shape[-1]
    if 0 < cfg.top_k < vocab:
        kth = probs.topk(cfg.top_k, dim=-1).values[..., -1:]
        probs = torch.where(probs >= kth, probs, torch.zeros_like(probs))
        probs = probs / probs.sum(dim=-1, keepdim=True)
    if cfg.top_p < 1.0:
        sorted_p, order = probs.sort(dim=-1, descending=True)
        before = sorted_p.cumsum(dim=-1) - sorted_p
        keep_sorted = before < cfg.top_p
        keep = torch.zeros_like(keep_sorted).scatter(-1, order, keep_sorted)
        probs = torch.where(keep, probs, torch.zeros_like(probs))
        probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs
