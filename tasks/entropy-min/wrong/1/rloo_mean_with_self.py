# WRONG: the baseline is the group mean including the response itself (not leave-one-out)
def rloo_advantages(rewards: torch.Tensor, group_size: int) -> torch.Tensor:
    n = rewards.shape[0]
    if group_size < 2 or n % group_size != 0:
        raise ValueError(f"group_size {group_size} does not fit {n} responses")
    r = rewards.reshape(n // group_size, group_size)
    return (r - r.mean(dim=1, keepdim=True)).reshape(n)
