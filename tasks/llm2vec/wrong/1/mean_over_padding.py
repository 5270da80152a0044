# WRONG: mean and weighted mean pooling include the padding positions
def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, mode: str = "mean") -> torch.Tensor:
    if mode not in POOLING_MODES:
        raise ValueError(f"unknown pooling mode {mode!r}")
    if mode == "mean":
        return hidden.mean(1)
    if mode == "weighted_mean":
        w = torch.arange(1, hidden.shape[1] + 1, dtype=hidden.dtype)
        return (w[None, :, None] * hidden).sum(1) / w.sum()
    last = (torch.arange(hidden.shape[1]) * attention_mask.bool()).argmax(-1)
    return hidden[torch.arange(hidden.shape[0]), last]
