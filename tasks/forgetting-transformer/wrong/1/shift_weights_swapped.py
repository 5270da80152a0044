# wrong: alpha weighs the current step and 1 - alpha the previous one
def token_shift(x: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    previous = F.pad(x, (0, 0, 0, 0, 1, 0))[:, :-1]
    a = alpha.unsqueeze(-1)
    return (1 - a) * previous + a * x
