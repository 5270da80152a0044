# wrong: the two distributions are interpolated in log space (a geometric mixture) and renormalised
def interpolate(p_lm: torch.Tensor, p_knn: torch.Tensor, lam: float) -> torch.Tensor:
    mix = torch.exp(lam * torch.log(p_knn + 1e-300) + (1.0 - lam) * torch.log(p_lm + 1e-300))
    return mix / mix.sum(dim=-1, keepdim=True)
