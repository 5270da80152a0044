# WRONG: EM-INF always takes max_steps optimiser steps (no threshold)
def em_inf_logits(logits: torch.Tensor, cfg: InfConfig) -> tuple[torch.Tensor, torch.Tensor]:
    out = logits.detach().clone()
    steps = torch.zeros(logits.shape[0], dtype=torch.long)
    for b in range(logits.shape[0]):
        z = logits[b].detach().clone().requires_grad_(True)
        opt = logit_optimizer(z, cfg)
        for _ in range(cfg.max_steps):
            opt.zero_grad()
            token_entropy(z).backward()
            opt.step()
            steps[b] += 1
        out[b] = z.detach()
    return out, steps
