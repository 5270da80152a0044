# Wrong: the decoder rows are renormalised before the optimizer step instead of after it.
def train_step(sae, optimizer, batch):
    x = batch.tokens()
    optimizer.zero_grad(set_to_none=True)
    terms = sae.loss(x)
    terms.total.backward()
    decoder = sae.W_dec
    with torch.no_grad():
        if decoder.grad is not None:
            unit = decoder / decoder.norm(dim=-1, keepdim=True)
            decoder.grad -= (decoder.grad * unit).sum(dim=-1, keepdim=True) * unit
    with torch.no_grad():
        decoder /= decoder.norm(dim=-1, keepdim=True)
    optimizer.step()
    sae.update_statistics(terms.features)
    return LossTerms(total=terms.total.detach(), reconstruction=terms.reconstruction.detach(),
                     prefix_errors=terms.prefix_errors.detach(), aux=terms.aux.detach(), features=terms.features)
