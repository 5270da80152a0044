# Wrong: the step function also passes a kernel pseudo-derivative to z (+(1/eps) K), training the encoder on L0.
class Step(torch.autograd.Function):
    @staticmethod
    def backward(ctx, grad_output):
        z, threshold = ctx.saved_tensors
        bandwidth = ctx.bandwidth
        kernel = rectangle((z - threshold) / bandwidth) / bandwidth
        grad_z = kernel * grad_output
        grad_threshold = (-kernel * grad_output).reshape(-1, z.shape[-1]).sum(dim=0)
        return grad_z, grad_threshold, None
