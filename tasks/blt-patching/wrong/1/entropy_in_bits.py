# wrong: entropies in bits (log base 2) instead of nats
def byte_entropies(logits: torch.Tensor) -> torch.Tensor:
    log_p = torch.log_softmax(logits, dim=-1)
    return -(log_p.exp() * log_p).sum(dim=-1) / math.log(2.0)
