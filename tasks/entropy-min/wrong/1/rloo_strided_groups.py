# WRONG: groups taken as strided rows (i, i + G, ...) instead of consecutive rows
def rloo_advantages(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    n = rewards.shape[0]
    if group_size < 2 or n % group_size != 0:
        raise ValueError(f"group_size {group_size} does not fit {n} responses")
    r = rewards.reshape(group_size, n // group_size)
    baseline = (r.sum(dim=0, keepdim=True) - r) / (group_size - 1)
    return (r - baseline).reshape(n)
