# WRONG: token confidence sums the top-k log-probabilities (no 1/k).
def token_confidence(logprobs: torch.Tensor, k: int) -> torch.Tensor:
    if not 1 <= k <= logprobs.shape[-1]:
        raise ValueError(f"k must be in [1, {logprobs.shape[-1]}], got {k}")
    top = torch.topk(logprobs, k, dim=-1).values
    return -top.sum(dim=-1)
