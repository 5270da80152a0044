# WRONG: off by one: the interval starts one token early ((L_max - L_cache - 1) - |y|) / L_cache.
def overlong_penalty(lengths: torch.Tensor, max_len: int, buffer_len: int) -> torch.Tensor:
    if not 0 < buffer_len <= max_len:
        raise ValueError("need 0 < buffer_len <= max_len")
    expected_len = max_len - buffer_len - 1
    lengths = lengths.to(torch.get_default_dtype())
    return ((expected_len - lengths) / buffer_len).clamp(min=-1.0, max=0.0)
