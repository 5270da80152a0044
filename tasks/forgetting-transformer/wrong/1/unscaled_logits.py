# wrong: the default scale is 1 (the equations omit 1/sqrt(d), the docstring asks for it)
def forgetting_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, log_fgate: torch.Tensor,
                         scale: float | None = None) -> torch.Tensor:
    if log_fgate.shape != q.shape[:3]:
        raise ValueError(f"log_fgate has shape {tuple(log_fgate.shape)}, expected {tuple(q.shape[:3])}")
    scale = 1.0 if scale is None else scale
    cum = torch.cumsum(log_fgate, dim=-1)
    bias = cum.unsqueeze(-1) - cum.unsqueeze(-2)
    logits = torch.einsum("bhid,bhjd->bhij", q, k) * scale + bias
    logits = logits.masked_fill(~causal_mask(q.shape[2], q.device), float("-inf"))
    return torch.einsum("bhij,bhjd->bhid", torch.softmax(logits, dim=-1), v)
