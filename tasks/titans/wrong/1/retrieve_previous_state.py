# wrong: retrieval with the memory before token t instead of the memory of step t
def retrieve(states: list[torch.Tensor], q: torch.Tensor) -> torch.Tensor:
    """Read the memory without changing it: token t's query goes through the memory of step t.

    Args:
        states: per weight matrix, tensors (B, T, d_in, d_out) as returned by the update functions.
        q: queries, shape (B, T, d_key).

    Returns:
        (B, T, d_value).
    """
    prev = [torch.cat([s[:, :1], s[:, :-1]], 1) for s in states]
    return memory_forward(prev, q.unsqueeze(-2)).squeeze(-2)
