# WRONG: the linear penalty divided by L_max instead of L_cache.
def overlong_penalty(lengths: torch.Tensor, max_len: int, buffer_len: int) -> torch.Tensor:
    if not 0 < buffer_len <= max_len:
        raise ValueError("need 0 < buffer_len <= max_len")
    expected_len = max_len - buffer_len
    lengths = lengths.to(torch.get_default_dtype())
    return ((expected_len - lengths) / max_len).clamp(min=-1.0, max=0.0)
