# WRONG: token confidence averages the log-probabilities of all V tokens, not the top k.
def token_confidence(logprobs: torch.Tensor, k: int) -> torch.Tensor:
    if not 1 <= k <= logprobs.shape[-1]:
        raise ValueError(f"k must be in [1, {logprobs.shape[-1]}], got {k}")
    return -logprobs.mean(dim=-1)
