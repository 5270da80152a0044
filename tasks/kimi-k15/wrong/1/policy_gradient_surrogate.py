# wrong: implements a surrogate whose gradient is Eq. (8) (policy gradient + l2 on the log-ratio) instead of Eq. (5)
def mirror_descent_loss(logprobs, batch, rewards, cfg):
    if logprobs.shape != batch.ref_logprobs.shape or rewards.shape != batch.lengths.shape:
        raise ValueError("logprobs, rewards and the batch disagree in shape")
    mask = response_mask(batch.lengths, logprobs.shape[-1])
    diff = (logprobs - batch.ref_logprobs.to(logprobs.dtype)).masked_fill(~mask, 0.0)
    log_ratio = diff.sum(dim=-1)
    r = rewards.to(logprobs.dtype)
    adv = r - log_partition(r, cfg.tau, cfg.log_z_estimate).unsqueeze(1)
    return (-(adv * log_ratio) + 0.5 * cfg.tau * log_ratio.pow(2)).mean()
