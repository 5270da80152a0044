# WRONG: GRPO's sample-level loss: mean over each response's tokens, then over the G responses (Eq. (4) weighting).
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
    per_response = surrogate.sum(dim=-1) / response_mask.sum(dim=-1).clamp(min=1).to(surrogate.dtype)
    return -per_response.mean(dim=1).mean()
