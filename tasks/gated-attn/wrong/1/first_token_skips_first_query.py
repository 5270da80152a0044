# WRONG: leaves out the first query position (always 1 on token 0)
def first_token_attention(probs: torch.Tensor) -> torch.Tensor:
    """Mean attention weight on the first position.

    Args:
        probs: (B, H, T, T) attention weights of one layer over a whole sequence, rows are queries.

    Returns:
        0-d tensor, dtype of probs: the weight on key position 0 averaged over the batch, the heads and all
        query positions.
    """
    return probs[:, :, 1:, 0].mean()
