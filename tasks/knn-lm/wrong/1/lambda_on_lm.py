# wrong: lambda weighs the language model instead of the kNN distribution
def interpolate(p_lm: torch.Tensor, p_knn: torch.Tensor, lam: float) -> torch.Tensor:
    return lam * p_lm + (1.0 - lam) * p_knn
