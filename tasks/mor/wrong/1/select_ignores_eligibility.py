# WRONG: top-k over every position (no hierarchical filtering)
def expert_choice_select(scores: torch.Tensor, eligible: torch.Tensor, k: int) -> torch.Tensor:
    """Top-k selection of one recursion step, per sequence, among the eligible positions.

    Args:
        scores: (B, T) float router weights (higher is preferred).
        eligible: (B, T) bool, the positions that may be selected.
        k: number of positions to select in every sequence (0 <= k).
    Returns:
        (B, T) bool mask with exactly k True entries per row, all of them eligible. Among equal scores the lower
        position is preferred.
    Raises:
        ValueError: if some row has fewer than k eligible positions, or k < 0.
    """
    if k < 0 or bool((eligible.sum(dim=1) < k).any()):
        raise ValueError("not enough eligible positions for the capacity")
    masked = scores
    order = torch.sort(masked, dim=1, descending=True, stable=True).indices[:, :k]
    out = torch.zeros_like(eligible)
    return out.scatter(1, order, True)
