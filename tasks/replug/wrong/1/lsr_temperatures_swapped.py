# WRONG: divides the similarities by beta and the LM probabilities by gamma
def lsr_loss(retrieval_scores: torch.Tensor, lm_logprobs: torch.Tensor, gamma: float,
             beta: float) -> torch.Tensor:
    log_p_r = torch.log_softmax(retrieval_scores / beta, dim=-1)
    log_q = torch.log_softmax(lm_logprobs.detach().exp() / gamma, dim=-1)
    return (log_p_r.exp() * (log_p_r - log_q)).sum(dim=-1).mean()
