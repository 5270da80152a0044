# wrong: AdamW without the bias corrections of the moments
class Muon:
    def _adamw_group(self, group):
        lr, decay, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if not state:
                state["step"] = 0
                state["exp_avg"] = torch.zeros_like(p)
                state["exp_avg_sq"] = torch.zeros_like(p)
            state["step"] += 1
            state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
            state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            p.mul_(1 - lr * decay)
            p.addcdiv_(state["exp_avg"], state["exp_avg_sq"].sqrt().add_(eps), value=-lr)
