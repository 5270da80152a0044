# wrong: the log-ratio divided by tau instead of multiplied (r - tau log Z - log(pi/pi_ref) / tau)
def mirror_descent_loss(logprobs, batch, rewards, cfg):
    if logprobs.shape != batch.ref_logprobs.shape or rewards.shape != batch.lengths.shape:
        raise ValueError("logprobs, rewards and the batch disagree in shape")
    mask = response_mask(batch.lengths, logprobs.shape[-1])
    diff = (logprobs - batch.ref_logprobs.to(logprobs.dtype)).masked_fill(~mask, 0.0)
    log_ratio = diff.sum(dim=-1)
    r = rewards.to(logprobs.dtype)
    baseline = log_partition(r, cfg.tau, cfg.log_z_estimate).unsqueeze(1)
    residual = r - baseline - log_ratio / cfg.tau
    return residual.pow(2).mean()
