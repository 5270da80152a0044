# wrong: the bias is removed additively (W = I, b = -p_cf) instead of W = diag(p_cf)^-1, b = 0
def calibration_params(p_cf: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    p_cf = p_cf.to(torch.float64)
    return torch.eye(p_cf.numel(), dtype=torch.float64), -p_cf
