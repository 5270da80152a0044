# WRONG: normalises both responses by the same length (the mean of the two lengths) instead of each by its own.
def simpo_loss(
    chosen_token_logps: torch.Tensor,
    chosen_mask: torch.Tensor,
    rejected_token_logps: torch.Tensor,
    rejected_mask: torch.Tensor,
    beta: float = 2.0,
    gamma: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    cm = chosen_mask.to(chosen_token_logps.dtype)
    rm = rejected_mask.to(rejected_token_logps.dtype)
    pooled = 0.5 * (cm.sum(-1) + rm.sum(-1))
    chosen_rewards = beta * (chosen_token_logps * cm).sum(-1) / pooled
    rejected_rewards = beta * (rejected_token_logps * rm).sum(-1) / pooled
    losses = -F.logsigmoid(chosen_rewards - rejected_rewards - gamma)
    return losses, chosen_rewards.detach(), rejected_rewards.detach()
