# wrong: Eq. (6) as log mean exp(r) (tau dropped inside and outside)
def log_partition(rewards, tau, estimate):
    if tau <= 0:
        raise ValueError(f"tau must be positive, got {tau}")
    if rewards.dim() != 2 or rewards.shape[1] == 0:
        raise ValueError(f"rewards must be (N, k) with k >= 1, got {tuple(rewards.shape)}")
    if estimate == "mean_reward":
        return rewards.mean(dim=1)
    if estimate == "log_mean_exp":
        return torch.logsumexp(rewards, dim=1) - math.log(rewards.shape[1])
    raise ValueError(f"unknown log Z estimate {estimate!r}")
