# wrong: the fraction of clipped responses instead of the fraction of tokens
def clip_fraction(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("bad advantages")
    ratio = torch.exp(sequence_log_ratio(logprobs.detach(), old_logprobs, mask))
    clipped = ((advantages > 0) & (ratio > 1.0 + eps_high)) | ((advantages < 0) & (ratio < 1.0 - eps_low))
    return clipped.to(logprobs.dtype).mean()
