# wrong: beta is 1 minus the L1 distance between p and q (the total variation distance without its half)
def acceptance_rate(p: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    return 1.0 - (p - q).abs().sum(dim=-1)
