# WRONG: masks padding along the query axis (rows) instead of the key axis
def build_attention_mask(attention_mask: torch.Tensor, bidirectional: bool) -> torch.Tensor:
    if attention_mask.ndim != 2:
        raise ValueError(f"attention_mask must be (B, T), got {tuple(attention_mask.shape)}")
    b, t = attention_mask.shape
    rows = attention_mask.bool()[:, None, :, None]
    if bidirectional:
        return rows.expand(b, 1, t, t).clone()
    causal = torch.ones(t, t, dtype=torch.bool, device=attention_mask.device).tril()
    return rows & causal
