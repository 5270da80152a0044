# wrong: counts tokens whose own token-level ratio is clipped (GRPO's count) instead of whole clipped responses
def clip_fraction(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("bad advantages")
    ratio = torch.exp(logprobs.detach() - old_logprobs)
    adv = advantages.unsqueeze(-1)
    clipped = ((adv > 0) & (ratio > 1.0 + eps_high)) | ((adv < 0) & (ratio < 1.0 - eps_low))
    return (clipped & mask).sum().to(logprobs.dtype) / mask.sum().to(logprobs.dtype)
