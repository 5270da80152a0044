# WRONG: the cross-entropy -sum Q log P_R (the Atlas-style distillation target) instead of KL(P_R || Q)
def lsr_loss(retrieval_scores: torch.Tensor, lm_logprobs: torch.Tensor, gamma: float,
             beta: float) -> torch.Tensor:
    log_p_r = torch.log_softmax(retrieval_scores / gamma, dim=-1)
    q = torch.softmax(lm_logprobs.detach().exp() / beta, dim=-1)
    return -(q * log_p_r).sum(dim=-1).mean()
