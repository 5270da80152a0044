# Wrong: the auxiliary loss's residual is not detached, so L_aux also trains the rest of the SAE.
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
            residual = x - out.reconstructions[-1]
            aux_acts = topk_per_row(torch.relu(out.pre_acts[:, dead]), self.cfg.aux_k)
            aux = reconstruction_error(residual, aux_acts @ self.W_dec[dead])
        return LossTerms(total=reconstruction + self.cfg.aux_coefficient * aux, reconstruction=reconstruction,
                         prefix_errors=errors, aux=aux, features=out.features.detach())
