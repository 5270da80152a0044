# WRONG: a group ends at every token, the first n-1 groups holding fewer than n tokens.
def group_confidences(token_conf: torch.Tensor, window: int) -> torch.Tensor:
    if token_conf.dim() != 1 or token_conf.numel() == 0:
        raise ValueError("token_conf must be a non-empty 1-D tensor")
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    sums = torch.cumsum(token_conf, 0)
    starts = torch.clamp(torch.arange(token_conf.numel()) - window + 1, min=0)
    before = torch.cat([sums.new_zeros(1), sums])[starts]
    counts = (torch.arange(token_conf.numel()) - starts + 1).to(token_conf.dtype)
    return (sums - before) / counts
