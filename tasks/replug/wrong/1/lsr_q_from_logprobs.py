# WRONG: Q is a softmax of the log-probabilities / beta instead of the probabilities P_LM(y | d, x) / beta (Eq. (5))
def lsr_loss(retrieval_scores: torch.Tensor, lm_logprobs: torch.Tensor, gamma: float,
             beta: float) -> torch.Tensor:
    log_p_r = torch.log_softmax(retrieval_scores / gamma, dim=-1)
    log_q = torch.log_softmax(lm_logprobs.detach() / beta, dim=-1)
    return (log_p_r.exp() * (log_p_r - log_q)).sum(dim=-1).mean()
