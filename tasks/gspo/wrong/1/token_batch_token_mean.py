# wrong: GSPO-token averaged over all tokens of the batch instead of per response then over responses
def gspo_token_loss(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape:
        raise ValueError("bad advantages")
    log_s = sequence_log_ratio(logprobs, old_logprobs, mask).detach()
    ratio = torch.exp(log_s.unsqueeze(-1) + logprobs - logprobs.detach())
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    surrogate = torch.minimum(ratio * advantages, clipped * advantages)
    return -torch.where(mask, surrogate, torch.zeros_like(surrogate)).sum() / mask.sum()
