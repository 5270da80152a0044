# wrong: Eq. (6) without the 1/k inside the logarithm (tau log sum exp(r / tau))
def log_partition(rewards, tau, estimate):
    if tau <= 0:
        raise ValueError(f"tau must be positive, got {tau}")
    if rewards.dim() != 2 or rewards.shape[1] == 0:
        raise ValueError(f"rewards must be (N, k) with k >= 1, got {tuple(rewards.shape)}")
    if estimate == "mean_reward":
        return rewards.mean(dim=1)
    if estimate == "log_mean_exp":
        return tau * torch.logsumexp(rewards / tau, dim=1)
    raise ValueError(f"unknown log Z estimate {estimate!r}")
