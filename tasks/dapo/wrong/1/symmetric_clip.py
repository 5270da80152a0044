# WRONG: clips the ratio to [1 - eps_low, 1 + eps_low] (no decoupled upper bound: Clip-Higher missing).
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
    surrogate = torch.minimum(ratio * adv, ratio.clamp(1.0 - eps_low, 1.0 + eps_low) * adv)
    surrogate = torch.where(response_mask, surrogate, torch.zeros_like(surrogate))
    tokens = response_mask.sum(dim=(1, 2)).to(surrogate.dtype)
    return -(surrogate.sum(dim=(1, 2)) / tokens).mean()
