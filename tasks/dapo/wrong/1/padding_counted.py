# WRONG: divides by G * T (padding counted as tokens) instead of the group's response tokens.
def dapo_policy_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
) -> torch.Tensor:
    ratio = torch.exp(logprobs - old_logprobs)
    adv = advantages.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, ratio.clamp(1.0 - eps_low, 1.0 + eps_high) * adv)
    surrogate = torch.where(response_mask, surrogate, torch.zeros_like(surrogate))
    return -(surrogate.sum(dim=(1, 2)) / (surrogate.shape[1] * surrogate.shape[2])).mean()
