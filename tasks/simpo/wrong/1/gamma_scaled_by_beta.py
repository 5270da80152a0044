# WRONG: treats gamma as a margin on the average log-probs, i.e. subtracts beta * gamma from the reward gap.
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
    chosen_avg = (chosen_token_logps * cm).sum(-1) / cm.sum(-1)
    rejected_avg = (rejected_token_logps * rm).sum(-1) / rm.sum(-1)
    losses = -F.logsigmoid(beta * (chosen_avg - rejected_avg - gamma))
    return losses, (beta * chosen_avg).detach(), (beta * rejected_avg).detach()
