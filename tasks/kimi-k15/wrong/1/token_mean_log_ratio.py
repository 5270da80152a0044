# wrong: log pi(y, z | x) taken as the mean of the token log-ratios instead of their sum (sequence log-prob)
def mirror_descent_loss(logprobs, batch, rewards, cfg):
    if logprobs.shape != batch.ref_logprobs.shape or rewards.shape != batch.lengths.shape:
        raise ValueError("logprobs, rewards and the batch disagree in shape")
    mask = response_mask(batch.lengths, logprobs.shape[-1])
    diff = (logprobs - batch.ref_logprobs.to(logprobs.dtype)).masked_fill(~mask, 0.0)
    log_ratio = diff.sum(dim=-1) / batch.lengths.clamp(min=1).to(logprobs.dtype)
    r = rewards.to(logprobs.dtype)
    baseline = log_partition(r, cfg.tau, cfg.log_z_estimate).unsqueeze(1)
    residual = r - baseline - cfg.tau * log_ratio
    return residual.pow(2).mean()
