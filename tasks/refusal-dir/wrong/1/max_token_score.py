# wrong: refusal score from the most likely refusal token only instead of the sum over refusal tokens
def refusal_score(logits: torch.Tensor, refusal_ids: list[int]) -> torch.Tensor:
    """Refusal score of each prompt.

    Args:
        logits: (batch, seq, vocab) logits of left-padded prompts.
        refusal_ids: token ids of the refusal tokens.

    Returns:
        Tensor (batch,) in the logits' dtype.
    """
    last = logits[:, -1, :]
    is_refusal = torch.zeros(last.shape[1], dtype=torch.bool, device=last.device)
    is_refusal[refusal_ids] = True
    log_refuse = last[:, is_refusal].max(1).values
    log_comply = torch.log(-torch.expm1(log_refuse - last.logsumexp(-1))) + last.logsumexp(-1)
    return log_refuse - log_comply
    log_comply = last[:, ~is_refusal].logsumexp(1)
    return log_refuse - log_comply
