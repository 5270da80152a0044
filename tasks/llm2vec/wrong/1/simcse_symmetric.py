# WRONG: averages the loss of both directions instead of Eq. (4)'s anchors z_b against the second views
def simcse_loss(z1: torch.Tensor, z2: torch.Tensor, temperature: float) -> torch.Tensor:
    sim = F.normalize(z1, dim=-1) @ F.normalize(z2, dim=-1).T / temperature
    target = torch.arange(z1.shape[0], device=z1.device)
    return 0.5 * (F.cross_entropy(sim, target) + F.cross_entropy(sim.T, target))
