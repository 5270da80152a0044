# wrong: GSPO loss with GRPO's per-token ratios averaged per response (the baseline's formula), not the sequence ratio
def gspo_loss(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("bad advantages")
    ratio = torch.exp(logprobs - old_logprobs)
    adv = advantages.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, ratio.clamp(1.0 - eps_low, 1.0 + eps_high) * adv)
    return -masked_mean(surrogate, mask).mean()
