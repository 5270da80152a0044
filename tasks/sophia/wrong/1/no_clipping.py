# WRONG: no clipping: the pre-conditioned step m / max(rho * h, eps) is applied as is.
class SophiaG:
    @torch.no_grad()
    def update_hessian(self, batch_size):
        for group in self.param_groups:
            beta2 = group["betas"][1]
            for p in group["params"]:
                if p.grad is None:
                    continue
                hessian = self._state(p)["hessian"]
                hessian.mul_(beta2).addcmul_(p.grad, p.grad, value=(1 - beta2) * batch_size)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, rho, wd, eps = group["lr"], group["rho"], group["weight_decay"], group["eps"]
            beta1 = group["betas"][0]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state(p)
                exp_avg, hessian = state["exp_avg"], state["hessian"]
                exp_avg.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                p.mul_(1 - lr * wd)
                ratio = exp_avg / torch.clamp(rho * hessian, min=eps)
                p.add_(ratio, alpha=-lr)
        return loss
