# wrong: sums the log-ratio over all T positions, padding included
def mirror_descent_loss(logprobs, batch, rewards, cfg):
    if logprobs.shape != batch.ref_logprobs.shape or rewards.shape != batch.lengths.shape:
        raise ValueError("logprobs, rewards and the batch disagree in shape")
    log_ratio = (logprobs - batch.ref_logprobs.to(logprobs.dtype)).sum(dim=-1)
    r = rewards.to(logprobs.dtype)
    baseline = log_partition(r, cfg.tau, cfg.log_z_estimate).unsqueeze(1)
    residual = r - baseline - cfg.tau * log_ratio
    return residual.pow(2).mean()
