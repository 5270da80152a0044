# WRONG: each trace adds one vote (plain majority, Eq. (8)) instead of its weight.
def weighted_vote(answers: Sequence[str | None], weights: Sequence[float]) -> Vote:
    if len(answers) != len(weights):
        raise ValueError("answers and weights must have the same length")
    totals: dict[str, float] = {}
    voters = []
    for i, (answer, weight) in enumerate(zip(answers, weights, strict=True)):
        if answer is None:
            continue
        totals[answer] = totals.get(answer, 0.0) + 1.0
        voters.append(i)
    best = max(totals, key=lambda a: totals[a]) if totals else None
    return Vote(best, totals, voters)
