# wrong: eps added to the variance under the square root instead of to the standard deviation
def group_advantages(rewards, eps=1e-6, unbiased=True):
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError("rewards must be (N, G) with G >= 2")
    var = rewards.var(dim=1, keepdim=True, unbiased=unbiased)
    return (rewards - rewards.mean(dim=1, keepdim=True)) / torch.sqrt(var + eps)
