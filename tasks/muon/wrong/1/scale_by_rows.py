# wrong: the RMS scale uses the first dimension A instead of max(A, B)
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
            scale = group["rms_scale"] * math.sqrt(p.shape[0])
            p.mul_(1 - lr * decay)
            p.add_(ortho, alpha=-lr * scale)
