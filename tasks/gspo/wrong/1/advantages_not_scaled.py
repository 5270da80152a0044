# wrong: advantages only centred, not divided by the group standard deviation
def group_advantages(rewards, eps=1e-6, unbiased=True):
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError("rewards must be (N, G) with G >= 2")
    return rewards - rewards.mean(dim=1, keepdim=True)
