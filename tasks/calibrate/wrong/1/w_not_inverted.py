# wrong: W is diag(p_cf) instead of its inverse
def calibration_params(p_cf: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    p_cf = p_cf.to(torch.float64)
    return torch.diag(p_cf), torch.zeros_like(p_cf)
