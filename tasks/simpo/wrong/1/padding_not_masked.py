# WRONG: sums the log-probs of every position, padding included, then divides by the true length.
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
    chosen_rewards = beta * chosen_token_logps.sum(-1) / cm.sum(-1)
    rejected_rewards = beta * rejected_token_logps.sum(-1) / rm.sum(-1)
    losses = -F.logsigmoid(chosen_rewards - rejected_rewards - gamma)
    return losses, chosen_rewards.detach(), rejected_rewards.detach()
