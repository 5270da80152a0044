# Wrong: the decoder rows are renormalised before the optimizer step instead of after it.
def train_step(sae, optimizer, x, sparsity_coefficient, unit_norm_decoder):
    optimizer.zero_grad(set_to_none=True)
    terms = sae.loss(x, sparsity_coefficient)
    terms.total.backward()
    if unit_norm_decoder:
        with torch.no_grad():
            rows = sae.W_dec / sae.W_dec.norm(dim=-1, keepdim=True)
            sae.W_dec.grad.sub_((sae.W_dec.grad * rows).sum(dim=-1, keepdim=True) * rows)
            sae.W_dec.div_(sae.W_dec.norm(dim=-1, keepdim=True))
    optimizer.step()
    return LossTerms(total=terms.total.detach(), reconstruction=terms.reconstruction.detach(),
                     l0=terms.l0.detach(), sparsity=terms.sparsity.detach())
