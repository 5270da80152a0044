# wrong: the plausibility threshold is the absolute probability alpha, not alpha times the largest probability
def plausible_tokens(expert_logprobs: torch.Tensor, alpha: float) -> torch.Tensor:
    probs = expert_logprobs.exp()
    return probs >= alpha
