# WRONG: the bidirectional mask is all ones, padding keys are not masked
def build_attention_mask(attention_mask: torch.Tensor, bidirectional: bool) -> torch.Tensor:
    if attention_mask.ndim != 2:
        raise ValueError(f"attention_mask must be (B, T), got {tuple(attention_mask.shape)}")
    b, t = attention_mask.shape
    if bidirectional:
        return torch.ones(b, 1, t, t, dtype=torch.bool, device=attention_mask.device)
    keys = attention_mask.bool()[:, None, None, :]
    causal = torch.ones(t, t, dtype=torch.bool, device=attention_mask.device).tril()
    return keys & causal
