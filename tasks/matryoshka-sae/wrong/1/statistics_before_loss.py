# Wrong: the statistics are updated from the batch before its loss, so the dead latents include this batch.
def train_step(sae, optimizer, batch):
    x = batch.tokens()
    optimizer.zero_grad(set_to_none=True)
    with torch.no_grad():
        sae.update_statistics(sae.encode(x)[1])
    terms = sae.loss(x)
    terms.total.backward()
    decoder = sae.W_dec
    with torch.no_grad():
        if decoder.grad is not None:
            unit = decoder / decoder.norm(dim=-1, keepdim=True)
            decoder.grad -= (decoder.grad * unit).sum(dim=-1, keepdim=True) * unit
    optimizer.step()
    with torch.no_grad():
        decoder /= decoder.norm(dim=-1, keepdim=True)
    return LossTerms(total=terms.total.detach(), reconstruction=terms.reconstruction.detach(),
                     prefix_errors=terms.prefix_errors.detach(), aux=terms.aux.detach(), features=terms.features)
