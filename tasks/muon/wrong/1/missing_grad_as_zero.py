# wrong: a Muon parameter without gradient is treated as having a zero gradient (decayed, momentum advanced)
class Muon:
    def _muon_group(self, group):
        lr, decay, mu = group["lr"], group["weight_decay"], group["momentum"]
        for p in group["params"]:
            grad = p.grad if p.grad is not None else torch.zeros_like(p)
            state = self.state[p]
            if "momentum_buffer" not in state:
                state["momentum_buffer"] = torch.zeros_like(p)
            buf = state["momentum_buffer"]
            buf.mul_(mu).add_(grad)
            update = grad.add(buf, alpha=mu) if group["nesterov"] else buf
            ortho = orthogonalize(update, group["ns_steps"])
            scale = group["rms_scale"] * math.sqrt(max(p.shape[0], p.shape[1]))
            p.mul_(1 - lr * decay)
            p.add_(ortho, alpha=-lr * scale)
