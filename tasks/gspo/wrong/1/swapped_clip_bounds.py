# wrong: the left and right clipping ranges swapped
def gspo_loss(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("bad advantages")
    ratio = torch.exp(sequence_log_ratio(logprobs, old_logprobs, mask))
    clipped = ratio.clamp(1.0 - eps_high, 1.0 + eps_low)
    return -torch.minimum(ratio * advantages, clipped * advantages).mean()
