# position ids follow the flattened order instead of the depth
def tree_position_ids(depths: torch.Tensor, past: int) -> torch.Tensor:
    """(n,) int64 position ids of the flattened tree's entries, which follow `past` cached entries."""
    return torch.arange(depths.shape[0], dtype=torch.int64) + past
