# WRONG: sums the divergences over the batch instead of averaging them (Eq. (6))
def lsr_loss(retrieval_scores: torch.Tensor, lm_logprobs: torch.Tensor, gamma: float,
             beta: float) -> torch.Tensor:
    log_p_r = torch.log_softmax(retrieval_scores / gamma, dim=-1)
    log_q = torch.log_softmax(lm_logprobs.detach().exp() / beta, dim=-1)
    return (log_p_r.exp() * (log_p_r - log_q)).sum(dim=-1).sum()
