# wrong: sums the group's terms instead of averaging them (1/G missing)
def gspo_loss(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("bad advantages")
    ratio = torch.exp(sequence_log_ratio(logprobs, old_logprobs, mask))
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    return -torch.minimum(ratio * advantages, clipped * advantages).sum(dim=-1).mean()
