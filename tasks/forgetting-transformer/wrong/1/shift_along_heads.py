# wrong: shifts along the head axis instead of time
def token_shift(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    previous = F.pad(x, (0, 0, 1, 0))[:, :, :-1]
    a = alpha.unsqueeze(-1)
    return a * previous + (1 - a) * x
