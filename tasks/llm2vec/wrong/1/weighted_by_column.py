# WRONG: weighted mean weights by the padded column index instead of the token's position in the sequence
def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, mode: str = "mean") -> torch.Tensor:
    if mode not in POOLING_MODES:
        raise ValueError(f"unknown pooling mode {mode!r}")
    real = attention_mask.to(hidden.dtype)
    if mode == "mean":
        weights = real / real.sum(-1, keepdim=True)
    elif mode == "weighted_mean":
        rank = torch.arange(1, hidden.shape[1] + 1, dtype=hidden.dtype) * real
        weights = rank / rank.sum(-1, keepdim=True)
    else:
        last = (torch.arange(hidden.shape[1]) * attention_mask.bool()).argmax(-1)
        return hidden[torch.arange(hidden.shape[0]), last]
    return (weights.unsqueeze(-1) * hidden).sum(1)
