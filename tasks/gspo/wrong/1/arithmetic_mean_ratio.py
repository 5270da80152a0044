# wrong: s_i as the arithmetic mean of the token ratios instead of the geometric mean (Eq. (8))
def sequence_log_ratio(logprobs, old_logprobs, mask):
    _check_layout(logprobs, old_logprobs, mask)
    ratios = torch.where(mask, torch.exp(logprobs - old_logprobs), torch.zeros_like(logprobs))
    return torch.log(ratios.sum(dim=-1) / mask.sum(dim=-1).to(logprobs.dtype))
