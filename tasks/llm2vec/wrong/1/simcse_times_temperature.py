# WRONG: similarities multiplied by the temperature instead of divided
def simcse_loss(z1: torch.Tensor, z2: torch.Tensor, temperature: float) -> torch.Tensor:
    sim = F.normalize(z1, dim=-1) @ F.normalize(z2, dim=-1).T * temperature
    return F.cross_entropy(sim, torch.arange(z1.shape[0], device=z1.device))
