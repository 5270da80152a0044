# WRONG: k_r rounded down instead of up
def capacity_schedule(n_tokens: int, n_recursions: int) -> list[int]:
    """Expert-choice capacities k_1, ..., k_{N_r} for a sequence of `n_tokens` tokens.

    Args:
        n_tokens: sequence length T (>= 1).
        n_recursions: N_r (>= 1).
    Returns:
        A list of N_r ints, the number of tokens selected at each recursion step.
    Raises:
        ValueError: if n_tokens < 1 or n_recursions < 1.
    """
    if n_tokens < 1 or n_recursions < 1:
        raise ValueError("n_tokens and n_recursions must be >= 1")
    caps = []
    for r in range(1, n_recursions + 1):
        num = n_tokens * (n_recursions - r + 1)
        caps.append(num // n_recursions)
    return caps
