# WRONG: the KL term is not scaled by beta: -log sigmoid(beta * gap - alpha * (KL_l - sg(KL_w))).
def tdpo_loss(
    chosen_logps_margin: torch.Tensor,
    rejected_logps_margin: torch.Tensor,
    chosen_seq_kl: torch.Tensor,
    rejected_seq_kl: torch.Tensor,
    beta: float = 0.1,
    alpha: float = 0.5,
    use_tdpo2: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gap = chosen_logps_margin - rejected_logps_margin
    if use_tdpo2:
        kl = alpha * (rejected_seq_kl - chosen_seq_kl.detach())
    else:
        kl = rejected_seq_kl - chosen_seq_kl
    losses = -F.logsigmoid(beta * gap - kl)
    return losses, beta * chosen_logps_margin.detach(), beta * rejected_logps_margin.detach()
