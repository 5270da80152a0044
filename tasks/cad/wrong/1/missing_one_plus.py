# WRONG: drops the 1 in (1 + alpha): alpha * logits_with_context - alpha * logits_without_context.
def cad_log_probs(logits_with_context: Tensor, logits_without_context: Tensor, alpha: float) -> Tensor:
    """Context-aware next-token log-probabilities.

    Args:
        logits_with_context: (..., vocab) next-token logits given the context and the query.
        logits_without_context: (..., vocab) next-token logits given the query only.
        alpha: the amount of adjustment (alpha = 0 is ordinary decoding with the context).

    Returns:
        (..., vocab) log of softmax((1 + alpha) * logits_with_context - alpha * logits_without_context),
        normalised over the last dimension, in the input dtype.
    """
    return torch.log_softmax(alpha * logits_with_context - alpha * logits_without_context, dim=-1)
