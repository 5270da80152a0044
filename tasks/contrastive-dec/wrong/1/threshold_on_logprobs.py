# wrong: the threshold alpha multiplies the largest log-probability instead of the largest probability
def plausible_tokens(expert_logprobs: torch.Tensor, alpha: float) -> torch.Tensor:
    probs = expert_logprobs.exp()
    return expert_logprobs >= alpha * expert_logprobs.max(dim=-1, keepdim=True).values
