# WRONG: lambda multiplies the loss instead of the argument: lam * l(margin).
def spin_loss(
    policy_real_logps: torch.Tensor,
    policy_generated_logps: torch.Tensor,
    opponent_real_logps: torch.Tensor,
    opponent_generated_logps: torch.Tensor,
    lam: float = 0.1,
    loss_type: str = "logistic",
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    real = policy_real_logps - opponent_real_logps
    generated = policy_generated_logps - opponent_generated_logps
    t = real - generated
    if loss_type == "logistic":
        losses = lam * F.softplus(-t)
    elif loss_type == "hinge":
        losses = lam * torch.relu(1.0 - t)
    else:
        raise ValueError(loss_type)
    return losses, lam * real.detach(), lam * generated.detach()
