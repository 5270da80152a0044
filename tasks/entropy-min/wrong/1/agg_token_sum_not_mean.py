# WRONG: "seq-mean-token-sum" averages within rows too (treated like seq-mean-token-mean)
def aggregate_loss(values: torch.Tensor, mask: torch.Tensor, mode: str) -> torch.Tensor:
    if mode not in LOSS_AGG_MODES:
        raise ValueError(f"unknown loss_agg_mode {mode!r}")
    m = mask.to(values.dtype)
    masked = values * m
    if mode == "token-mean":
        return masked.sum() / m.sum()
    return (masked.sum(dim=1) / m.sum(dim=1)).mean()
