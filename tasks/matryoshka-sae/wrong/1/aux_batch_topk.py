# Wrong: the dead latents of the auxiliary loss are selected by BatchTopK, not per token.
class MatryoshkaSAE:
    def loss(self, x):
        if x.dim() != 2 or x.shape[-1] != self.cfg.d_model:
            raise ValueError("x must be (n_tokens, d_model)")
        out = self(x)
        errors = torch.stack([reconstruction_error(x, x_hat) for x_hat in out.reconstructions])
        reconstruction = errors.sum()
        dead = self.dead_latents()
        aux = torch.zeros((), dtype=x.dtype)
        if bool(dead.any()):
            residual = (x - out.reconstructions[-1]).detach()
            aux_acts = batch_topk(out.pre_acts[:, dead], self.cfg.aux_k)
            aux = reconstruction_error(residual, aux_acts @ self.W_dec[dead])
        return LossTerms(total=reconstruction + self.cfg.aux_coefficient * aux, reconstruction=reconstruction,
                         prefix_errors=errors, aux=aux, features=out.features.detach())
