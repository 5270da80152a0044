# WRONG: groups are disjoint blocks of n tokens (stride n), not a sliding window.
def group_confidences(token_conf: torch.Tensor, window: int) -> torch.Tensor:
    if token_conf.dim() != 1 or token_conf.numel() == 0:
        raise ValueError("token_conf must be a non-empty 1-D tensor")
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    if token_conf.numel() < window:
        return token_conf.mean().reshape(1)
    return token_conf.unfold(0, window, window).mean(dim=-1)
