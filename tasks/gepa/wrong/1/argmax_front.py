# wrong: one best candidate per instance (the first index reaching the maximum), ties dropped
def pareto_fronts(scores: list[list[float]]) -> list[set[int]]:
    if not scores or not scores[0] or any(len(row) != len(scores[0]) for row in scores):
        raise ValueError("scores must be a non-empty matrix with rows of equal, positive length")
    return [{max(range(len(scores)), key=lambda k: scores[k][i])} for i in range(len(scores[0]))]
