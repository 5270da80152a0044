# Wrong: TopK per token (k latents for every token) instead of the n k largest entries of the whole batch.
def batch_topk(pre_acts, k):
    if pre_acts.dim() != 2:
        raise ValueError("pre_acts must be 2-D")
    return topk_per_row(torch.relu(pre_acts), k)
