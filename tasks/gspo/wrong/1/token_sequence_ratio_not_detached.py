# wrong: GSPO-token without the stop-gradient on s_i (gradient flows through the sequence ratio as well)
def gspo_token_loss(logprobs, old_logprobs, advantages, mask, eps_low, eps_high):
    _check_layout(logprobs, old_logprobs, mask)
    if advantages.shape != logprobs.shape:
        raise ValueError("bad advantages")
    log_s = sequence_log_ratio(logprobs, old_logprobs, mask)
    ratio = torch.exp(log_s.unsqueeze(-1) + logprobs - logprobs.detach())
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    surrogate = torch.minimum(ratio * advantages, clipped * advantages)
    return -masked_mean(surrogate, mask).mean()
