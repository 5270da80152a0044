# Wrong: the decoder rows are renormalised after the step, but the gradient is not projected.
def train_step(sae, optimizer, batch):
    x = batch.tokens()
    optimizer.zero_grad(set_to_none=True)
    terms = sae.loss(x)
    terms.total.backward()
    decoder = sae.W_dec
    with torch.no_grad():
        pass
    optimizer.step()
    with torch.no_grad():
        decoder /= decoder.norm(dim=-1, keepdim=True)
    sae.update_statistics(terms.features)
    return LossTerms(total=terms.total.detach(), reconstruction=terms.reconstruction.detach(),
                     prefix_errors=terms.prefix_errors.detach(), aux=terms.aux.detach(), features=terms.features)
