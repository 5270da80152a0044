# WRONG: the linear penalty continues past L_max instead of staying at -1.
def overlong_penalty(lengths: torch.Tensor, max_len: int, buffer_len: int) -> torch.Tensor:
    if not 0 < buffer_len <= max_len:
        raise ValueError("need 0 < buffer_len <= max_len")
    expected_len = max_len - buffer_len
    lengths = lengths.to(torch.get_default_dtype())
    return ((expected_len - lengths) / buffer_len).clamp(max=0.0)
