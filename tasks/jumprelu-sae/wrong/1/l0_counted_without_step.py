# Wrong: L0 counted from the non-zero features, so the sparsity term gives no gradient to the thresholds.
class JumpReLUSAE(nn.Module):
    def loss(self, x, sparsity_coefficient):
        if x.dim() != 2 or x.shape[-1] != self.cfg.d_model:
            raise ValueError(f"expected activations of shape (batch, {self.cfg.d_model}), got {tuple(x.shape)}")
        out = self(x)
        reconstruction = (x - out.reconstruction).pow(2).sum(dim=-1).mean()
        l0 = (out.features != 0).to(x.dtype).sum(dim=-1).mean()
        sparsity = sparsity_coefficient * l0
        return LossTerms(total=reconstruction + sparsity, reconstruction=reconstruction, l0=l0, sparsity=sparsity)
