# wrong: the original Muon scale sqrt(max(1, A / B)) instead of 0.2 sqrt(max(A, B)) of Eq. (4)
class Muon:
    def _muon_group(self, group):
        lr, decay, mu = group["lr"], group["weight_decay"], group["momentum"]
        for p in group["params"]:
            if p.grad is None:
                continue
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = torch.zeros_like(p)
            buf = state["momentum_buffer"]
            buf.mul_(mu).add_(p.grad)
            update = p.grad.add(buf, alpha=mu) if group["nesterov"] else buf
            ortho = orthogonalize(update, group["ns_steps"])
            scale = math.sqrt(max(1.0, p.shape[0] / p.shape[1]))
            p.mul_(1 - lr * decay)
            p.add_(ortho, alpha=-lr * scale)
