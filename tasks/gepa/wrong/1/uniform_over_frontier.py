# wrong: samples uniformly among the non-dominated candidates instead of in proportion to f
def select_candidate(scores: list[list[float]], rng: random.Random) -> int:
    fronts = prune_dominated(pareto_fronts(scores))
    return sample_proportional(rng, {k: 1 for front in fronts for k in front})
