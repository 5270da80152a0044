# wrong: one AdamW step counter per optimizer step, also advanced for parameters without a gradient
class Muon:
    def _adamw_group(self, group):
        lr, decay, eps = group["lr"], group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        group["t"] = group.get("t", 0) + 1
        t = group["t"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if not state:
                state["exp_avg"] = torch.zeros_like(p)
                state["exp_avg_sq"] = torch.zeros_like(p)
            state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
            state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            p.mul_(1 - lr * decay)
            denom = (state["exp_avg_sq"].sqrt() / math.sqrt(1 - beta2**t)).add_(eps)
            p.addcdiv_(state["exp_avg"], denom, value=-lr / (1 - beta1**t))
