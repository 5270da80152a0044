# WRONG: EOS pooling takes the last column, which is padding in right-padded rows
def pool(hidden: torch.Tensor, attention_mask: torch.Tensor, mode: str = "mean") -> torch.Tensor:
    if mode not in POOLING_MODES:
        raise ValueError(f"unknown pooling mode {mode!r}")
    real = attention_mask.to(hidden.dtype)
    if mode == "mean":
        weights = real / real.sum(-1, keepdim=True)
    elif mode == "weighted_mean":
        rank = real.cumsum(-1) * real
        weights = rank / rank.sum(-1, keepdim=True)
    else:
        return hidden[:, -1]
    return (weights.unsqueeze(-1) * hidden).sum(1)
