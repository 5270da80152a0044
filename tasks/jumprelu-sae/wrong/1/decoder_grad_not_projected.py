# Wrong: the decoder rows are renormalised after the step, but the parallel gradient component is not removed.
def train_step(sae, optimizer, x, sparsity_coefficient, unit_norm_decoder):
    optimizer.zero_grad(set_to_none=True)
    terms = sae.loss(x, sparsity_coefficient)
    terms.total.backward()
    optimizer.step()
    if unit_norm_decoder:
        with torch.no_grad():
            sae.W_dec.div_(sae.W_dec.norm(dim=-1, keepdim=True))
    return LossTerms(total=terms.total.detach(), reconstruction=terms.reconstruction.detach(),
                     l0=terms.l0.detach(), sparsity=terms.sparsity.detach())
