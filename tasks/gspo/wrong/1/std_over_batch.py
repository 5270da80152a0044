# wrong: advantages normalised with the mean and std of the whole batch instead of each group
def group_advantages(rewards, eps=1e-6, unbiased=True):
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError("rewards must be (N, G) with G >= 2")
    return (rewards - rewards.mean()) / (rewards.std(unbiased=unbiased) + eps)
