# WRONG: the tail measure averages the last `window` tokens instead of `tail_tokens`.
def trace_confidence(token_conf: torch.Tensor, measure: Measure, cfg: ConfidenceConfig) -> torch.Tensor:
    if token_conf.dim() != 1 or token_conf.numel() == 0:
        raise ValueError("token_conf must be a non-empty 1-D tensor")
    if measure == "mean":
        return token_conf.mean()
    if measure == "tail":
        return token_conf[-cfg.window:].mean()
    groups = group_confidences(token_conf, cfg.window)
    if measure == "lowest":
        return groups.min()
    if measure == "bottom":
        count = max(1, -(-cfg.bottom_percent * groups.numel() // 100))
        return torch.sort(groups).values[:count].mean()
    raise ValueError(f"unknown measure {measure!r}")
