# WRONG: entropy in bits (log base 2) instead of nats
def token_entropy(logits: torch.Tensor) -> torch.Tensor:
    p = torch.softmax(logits, dim=-1)
    return -(p * torch.log2(p.clamp_min(1e-300))).sum(dim=-1)
