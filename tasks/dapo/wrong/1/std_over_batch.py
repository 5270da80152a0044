# WRONG: normalises by the mean and standard deviation of the whole batch instead of each group's.
def group_advantages(rewards: torch.Tensor, eps: float = 1e-6, unbiased: bool = True) -> torch.Tensor:
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError("rewards must be (N, G) with G >= 2")
    return (rewards - rewards.mean()) / (rewards.std(unbiased=unbiased) + eps)
