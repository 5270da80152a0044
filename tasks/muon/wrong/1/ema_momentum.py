# wrong: momentum as an exponential moving average, M_t = mu M_{t-1} + (1 - mu) g, Nesterov input (1 - mu) g + mu M_t
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
            buf.lerp_(p.grad, 1 - mu)
            update = p.grad.lerp(buf, mu) if group["nesterov"] else buf
            ortho = orthogonalize(update, group["ns_steps"])
            scale = group["rms_scale"] * math.sqrt(max(p.shape[0], p.shape[1]))
            p.mul_(1 - lr * decay)
            p.add_(ortho, alpha=-lr * scale)
