# WRONG: always the population standard deviation, whatever `unbiased` says.
def group_advantages(rewards: torch.Tensor, eps: float = 1e-6, unbiased: bool = True) -> torch.Tensor:
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError("rewards must be (N, G) with G >= 2")
    mean = rewards.mean(dim=1, keepdim=True)
    std = rewards.std(dim=1, keepdim=True, unbiased=False)
    return (rewards - mean) / (std + eps)
