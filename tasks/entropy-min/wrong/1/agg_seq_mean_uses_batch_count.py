# WRONG: "seq-mean-token-mean" divides each row's sum by the batch's token count instead of the row's
def aggregate_loss(values: torch.Tensor, mask: torch.Tensor, mode: str) -> torch.Tensor:
    if mode not in LOSS_AGG_MODES:
        raise ValueError(f"unknown loss_agg_mode {mode!r}")
    m = mask.to(values.dtype)
    masked = values * m
    if mode == "token-mean":
        return masked.sum() / m.sum()
    per_row = masked.sum(dim=1)
    if mode == "seq-mean-token-mean":
        per_row = per_row / m.sum()
    return per_row.mean()
