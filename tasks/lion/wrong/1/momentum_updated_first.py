# WRONG: refreshes the moving average before using it (Adam/momentum order): update = sign(new m), beta1 unused.
class Lion:
    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, wd = group["lr"], group["weight_decay"]
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad
                state = self.state[p]
                if len(state) == 0:
                    state["exp_avg"] = torch.zeros_like(p)
                exp_avg = state["exp_avg"]
                exp_avg.mul_(beta2).add_(grad, alpha=1 - beta2)
                p.mul_(1 - lr * wd)
                p.add_(exp_avg.sign(), alpha=-lr)
        return loss
