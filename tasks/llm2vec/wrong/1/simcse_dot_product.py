# WRONG: dot product instead of cosine similarity
def simcse_loss(z1: torch.Tensor, z2: torch.Tensor, temperature: float) -> torch.Tensor:
    sim = z1 @ z2.T / temperature
    return F.cross_entropy(sim, torch.arange(z1.shape[0], device=z1.device))
