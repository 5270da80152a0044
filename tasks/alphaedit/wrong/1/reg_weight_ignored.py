# WRONG: always adds the identity, whatever the configured regularisation weight.
def alphaedit_delta(resid: torch.Tensor, keys: torch.Tensor, projector: torch.Tensor, prev_cov: torch.Tensor,
                    reg_weight: float) -> torch.Tensor:
    d0, u = keys.shape
    if resid.ndim != 2 or resid.shape[1] != u or projector.shape != (d0, d0) or prev_cov.shape != (d0, d0):
        raise ValueError("inconsistent shapes of resid, keys, projector and prev_cov")
    if reg_weight <= 0:
        raise ValueError("reg_weight must be positive")
    lhs = (prev_cov + keys @ keys.T) @ projector + torch.eye(d0, dtype=keys.dtype)
    return torch.linalg.solve(lhs.T, (resid @ keys.T @ projector).T).T
