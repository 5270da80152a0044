# Wrong: no ReLU: the n k largest pre-activations are kept even when they are negative.
def batch_topk(pre_acts, k):
    if pre_acts.dim() != 2:
        raise ValueError("pre_acts must be 2-D")
    flat = pre_acts.reshape(-1)
    n_keep = min(k * pre_acts.shape[0], flat.numel())
    top = flat.topk(n_keep)
    return torch.zeros_like(flat).scatter(0, top.indices, top.values).reshape(pre_acts.shape)
