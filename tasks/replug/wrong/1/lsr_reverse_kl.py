# WRONG: minimises KL(Q || P_R) instead of KL(P_R || Q) (Eq. (6))
def lsr_loss(retrieval_scores: torch.Tensor, lm_logprobs: torch.Tensor, gamma: float,
             beta: float) -> torch.Tensor:
    log_p_r = torch.log_softmax(retrieval_scores / gamma, dim=-1)
    log_q = torch.log_softmax(lm_logprobs.detach().exp() / beta, dim=-1)
    return (log_q.exp() * (log_q - log_p_r)).sum(dim=-1).mean()
