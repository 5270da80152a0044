# Wrong: the threshold gradients are averaged, not summed, over the batch dimensions (both functions).
class JumpReLU(torch.autograd.Function):
    @staticmethod
    def backward(ctx, grad_output):
        z, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        grad_z = heaviside(z - threshold) * grad_output
        pseudo = -(threshold / bandwidth) * rectangle((z - threshold) / bandwidth)
        grad_threshold = (pseudo * grad_output).reshape(-1, z.shape[-1]).mean(dim=0)
        return grad_z, grad_threshold, None


class Step(torch.autograd.Function):
    @staticmethod
    def backward(ctx, grad_output):
        z, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        grad_z = torch.zeros_like(z)
        pseudo = -(1.0 / bandwidth) * rectangle((z - threshold) / bandwidth)
        grad_threshold = (pseudo * grad_output).reshape(-1, z.shape[-1]).mean(dim=0)
        return grad_z, grad_threshold, None
