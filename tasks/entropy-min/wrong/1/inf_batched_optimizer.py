# WRONG: one optimiser over the whole batch; rows that reached the threshold get zero gradient but Adam's momentum keeps moving them
def em_inf_logits(logits: torch.Tensor, cfg: InfConfig) -> tuple[torch.Tensor, torch.Tensor]:
    z = logits.detach().clone().requires_grad_(True)
    opt = logit_optimizer(z, cfg)
    steps = torch.zeros(logits.shape[0], dtype=torch.long)
    active = torch.ones(logits.shape[0], dtype=torch.bool)
    for _ in range(cfg.max_steps):
        h = token_entropy(z)
        active = active & (h.detach() > cfg.threshold)
        if not active.any():
            break
        opt.zero_grad()
        (h * active.to(h.dtype)).sum().backward()
        opt.step()
        steps += active.long()
    return z.detach(), steps
