# WRONG: subtracts the group mean but does not divide by the group standard deviation.
def group_advantages(rewards: torch.Tensor, eps: float = 1e-6, unbiased: bool = True) -> torch.Tensor:
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError("rewards must be (N, G) with G >= 2")
    return rewards - rewards.mean(dim=1, keepdim=True)
