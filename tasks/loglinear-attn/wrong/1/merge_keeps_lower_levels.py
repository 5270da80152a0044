# wrong: the merge sums levels 0..b into level b+1 but leaves levels 1..b in place
def merge_levels(states: torch.Tensor, position: int) -> torch.Tensor:
    """The Fenwick merge that turns the level states of position - 1 into those of position, before its decay
    and its own token are applied.

    states: (..., num_levels, K, V) level states (level index at dim -3) after position - 1;
    position: the new position (at least 1).
    Returns a new tensor of the same shape; `states` is not modified.
    Raises ValueError when position < 1 or when the merge needs a level >= num_levels.
    """
    NL = states.shape[-3]
    if position < 1:
        raise ValueError(f"position must be at least 1, got {position}")
    b = (position & -position).bit_length() - 1
    if b + 1 >= NL:
        raise ValueError(f"position {position} needs more than {NL} levels")
    merged = states[..., :b + 1, :, :].sum(-3, keepdim=True)
    return torch.cat([torch.zeros_like(states[..., :1, :, :]), states[..., 1:b + 1, :, :], merged,
                      states[..., b + 2:, :, :]], -3)
