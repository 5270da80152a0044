# wrong: sequence ratio without the 1/|y_i| exponent (sum of the token log-ratios)
def sequence_log_ratio(logprobs, old_logprobs, mask):
    _check_layout(logprobs, old_logprobs, mask)
    return torch.where(mask, logprobs - old_logprobs, torch.zeros_like(logprobs)).sum(dim=-1)
