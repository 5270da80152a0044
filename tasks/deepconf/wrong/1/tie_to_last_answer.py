# WRONG: ties between answers go to the answer seen last.
def weighted_vote(answers: Sequence[str | None], weights: Sequence[float]) -> Vote:
    if len(answers) != len(weights):
        raise ValueError("answers and weights must have the same length")
    totals: dict[str, float] = {}
    voters = []
    for i, (answer, weight) in enumerate(zip(answers, weights, strict=True)):
        if answer is None:
            continue
        totals[answer] = totals.get(answer, 0.0) + float(weight)
        voters.append(i)
    best = max(reversed(list(totals)), key=lambda a: totals[a]) if totals else None
    return Vote(best, totals, voters)
