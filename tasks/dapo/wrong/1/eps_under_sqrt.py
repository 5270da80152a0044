# WRONG: eps added to the variance under the square root instead of to the standard deviation.
def group_advantages(rewards: torch.Tensor, eps: float = 1e-6, unbiased: bool = True) -> torch.Tensor:
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError("rewards must be (N, G) with G >= 2")
    mean = rewards.mean(dim=1, keepdim=True)
    var = rewards.var(dim=1, keepdim=True, unbiased=unbiased)
    return (rewards - mean) / torch.sqrt(var + eps)
