# WRONG: "majority" votes with the configured power like "borda" (majority voting is p = 0)
def select(scores: torch.Tensor, answers: Sequence[str | None], cfg: SelectionConfig) -> Selection:
    """Choose one answer among N responses.

    Args:
        scores: (N,) float tensor, the confidence of each response (larger means more confident).
        answers: the N extracted answers (`extract_answer`), None for a response without one.
        cfg: the method and, for "borda", the power p.

    Returns:
        The chosen answer, response and votes (see `Selection`).

    Raises:
        ValueError: if N == 0, scores is not (N,), the method is unknown or the power is negative.
    """
    n = len(answers)
    if n == 0 or scores.dim() != 1 or scores.shape[0] != n:
        raise ValueError(f"need N >= 1 scores and answers, got {tuple(scores.shape)} and {n}")
    if cfg.method not in ("max", "majority", "borda"):
        raise ValueError(f"unknown method {cfg.method!r}")
    if cfg.power < 0:
        raise ValueError(f"power must be >= 0, got {cfg.power}")
    order = torch.argsort(scores, descending=True, stable=True).tolist()
    if cfg.method == "max":
        return Selection(answers[order[0]], order[0], {})
    groups: list[list[int]] = []
    for i in order:
        answer = answers[i]
        if answer is None:
            continue
        for group in groups:
            if same_answer(answers[group[0]], answer):
                group.append(i)
                break
        else:
            groups.append([i])
    if not groups:
        return Selection(None, order[0], {})
    rank = {i: r for r, i in enumerate(order, start=1)}
    power = cfg.power
    totals = [sum(float(n - rank[i] + 1) ** power for i in group) for group in groups]
    best = max(range(len(groups)), key=lambda k: totals[k])
    votes = {str(answers[g[0]]): t for g, t in zip(groups, totals, strict=True)}
    return Selection(answers[groups[best][0]], groups[best][0], votes)
