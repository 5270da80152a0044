# wrong: the mean log-ratio divides by the padded length T instead of |y_i|
def sequence_log_ratio(logprobs, old_logprobs, mask):
    _check_layout(logprobs, old_logprobs, mask)
    diff = torch.where(mask, logprobs - old_logprobs, torch.zeros_like(logprobs))
    return diff.mean(dim=-1)
