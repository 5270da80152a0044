# wrong: SelectBestCandidate (the ablation): always the candidate with the best average score, no sampling
def select_candidate(scores: list[list[float]], rng: random.Random) -> int:
    pareto_fronts(scores)
    means = [sum(row) / len(row) for row in scores]
    return max(range(len(means)), key=lambda k: means[k])
