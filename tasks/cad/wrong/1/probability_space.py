# WRONG: mixes probabilities, (1 + alpha) p(y|c,x) - alpha p(y|x) clamped and renormalised, instead of logits.
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
    mix = ((1 + alpha) * logits_with_context.softmax(-1) - alpha * logits_without_context.softmax(-1)).clamp_min(1e-12)
    return (mix / mix.sum(-1, keepdim=True)).log()
