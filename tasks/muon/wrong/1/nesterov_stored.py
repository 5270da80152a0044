# wrong: the Nesterov combination mu M_t + g is stored as the momentum buffer
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
            if group["nesterov"]:
                buf.mul_(mu).add_(p.grad)
            update = buf
            ortho = orthogonalize(update, group["ns_steps"])
            scale = group["rms_scale"] * math.sqrt(max(p.shape[0], p.shape[1]))
            p.mul_(1 - lr * decay)
            p.add_(ortho, alpha=-lr * scale)
