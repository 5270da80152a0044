# wrong: refusal score read at the first position instead of the last
def refusal_score(logits: torch.Tensor, refusal_ids: list[int]) -> torch.Tensor:
    """Refusal score of each prompt.

    Args:
        logits: (batch, seq, vocab) logits of left-padded prompts.
        refusal_ids: token ids of the refusal tokens.

    Returns:
        Tensor (batch,) in the logits' dtype.
    """
    last = logits[:, 0, :]
    is_refusal = torch.zeros(last.shape[1], dtype=torch.bool, device=last.device)
    is_refusal[refusal_ids] = True
    log_refuse = last[:, is_refusal].logsumexp(1)
    log_comply = last[:, ~is_refusal].logsumexp(1)
    return log_refuse - log_comply
