# Wrong: the reconstruction term is the mean squared error over the d_model dimensions, not the squared L2 norm.
class JumpReLUSAE(nn.Module):
    def loss(self, x, sparsity_coefficient):
        if x.dim() != 2 or x.shape[-1] != self.cfg.d_model:
            raise ValueError(f"expected activations of shape (batch, {self.cfg.d_model}), got {tuple(x.shape)}")
        out = self(x)
        reconstruction = (x - out.reconstruction).pow(2).mean()
        l0 = Step.apply(out.pre_activations, self.threshold, self.bandwidth).sum(dim=-1).mean()
        sparsity = sparsity_coefficient * l0
        return LossTerms(total=reconstruction + sparsity, reconstruction=reconstruction, l0=l0, sparsity=sparsity)
