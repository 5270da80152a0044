# wrong: counts every response whose ratio is outside the band, whatever the sign of its advantage
def clip_fraction(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("bad advantages")
    ratio = torch.exp(sequence_log_ratio(logprobs.detach(), old_logprobs, mask))
    clipped = (ratio > 1.0 + eps_high) | (ratio < 1.0 - eps_low)
    lengths = mask.sum(dim=-1)
    return (lengths * clipped).sum().to(logprobs.dtype) / lengths.sum().to(logprobs.dtype)
