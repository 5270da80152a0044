# wrong: samples by frequency over the unpruned Pareto sets P*[i] (dominated candidates keep their weight)
def select_candidate(scores: list[list[float]], rng: random.Random) -> int:
    frequency: dict[int, int] = {}
    for front in pareto_fronts(scores):
        for k in front:
            frequency[k] = frequency.get(k, 0) + 1
    return sample_proportional(rng, frequency)
