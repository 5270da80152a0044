# Wrong: a plain straight-through (identity) gradient to z instead of H(z - theta).
class JumpReLU(torch.autograd.Function):
    @staticmethod
    def backward(ctx, grad_output):
        z, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        grad_z = grad_output.clone()
        pseudo = -(threshold / bandwidth) * rectangle((z - threshold) / bandwidth)
        grad_threshold = (pseudo * grad_output).reshape(-1, z.shape[-1]).sum(dim=0)
        return grad_z, grad_threshold, None
