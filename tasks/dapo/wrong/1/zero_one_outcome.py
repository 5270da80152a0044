# WRONG: outcome reward 1 / 0 instead of the rule-based +1 / -1 of Eq. (6).
def shaped_rewards(correct: torch.Tensor, lengths: torch.Tensor, max_len: int, buffer_len: int) -> torch.Tensor:
    outcome = correct.to(torch.get_default_dtype())
    return outcome + overlong_penalty(lengths, max_len, buffer_len)
