# wrong: the calibrated scores are p W (a row vector times W) instead of W p
def calibrate(probs: torch.Tensor, W: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.softmax(probs.to(torch.float64) @ W + b, dim=-1)
