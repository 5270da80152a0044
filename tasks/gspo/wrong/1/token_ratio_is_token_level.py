# wrong: GSPO-token with the token's own ratio pi_theta / pi_old (GRPO's w_{i,t}) instead of sg[s_i] pi / sg[pi]
def gspo_token_loss(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape:
        raise ValueError("bad advantages")
    ratio = torch.exp(logprobs - old_logprobs)
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    surrogate = torch.minimum(ratio * advantages, clipped * advantages)
    return -masked_mean(surrogate, mask).mean()
