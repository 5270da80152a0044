# WRONG: compresses with the larger groups at the end instead of the beginning.
def compress_rationale(demo: Demonstration, n_keep: int) -> list[str]:
    """Shorten a rationale to ``n_keep`` steps without dropping any text.

    The original steps are split into ``n_keep`` contiguous groups whose sizes differ by at most one,
    the larger groups first (7 steps into 3 groups: 3, 2, 2); the steps of a group are joined with
    single spaces into one step. A rationale that already has at most ``n_keep`` steps is returned
    unchanged (as a new list). Raises ValueError if ``n_keep < 1``.
    """
    if n_keep < 1:
        raise ValueError(f"n_keep must be at least 1, got {n_keep}")
    steps = list(demo.steps)
    if len(steps) <= n_keep:
        return steps
    size, extra = divmod(len(steps), n_keep)
    out, start = [], 0
    for g in range(n_keep):
        end = start + size + (1 if g >= n_keep - extra else 0)
        out.append(" ".join(steps[start:end]))
        start = end
    return out
