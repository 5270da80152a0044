# Wrong: the pseudo-derivative of Eq. (9) with the sign flipped (+theta/eps K).
class JumpReLU(torch.autograd.Function):
    @staticmethod
    def backward(ctx, grad_output):
        z, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        grad_z = heaviside(z - threshold) * grad_output
        pseudo = (threshold / bandwidth) * rectangle((z - threshold) / bandwidth)
        grad_threshold = (pseudo * grad_output).reshape(-1, z.shape[-1]).sum(dim=0)
        return grad_z, grad_threshold, None
