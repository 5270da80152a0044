# WRONG: sums over heads instead of averaging
def first_token_attention(probs: torch.Tensor) -> torch.Tensor:
    """Mean attention weight on the first position.

    Args:
        probs: (B, H, T, T) attention weights of one layer over a whole sequence, rows are queries.

    Returns:
        0-d tensor, dtype of probs: the weight on key position 0 averaged over the batch, the heads and all
        query positions.
    """
    return probs[:, :, :, 0].sum(1).mean()
