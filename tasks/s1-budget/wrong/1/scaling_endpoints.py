# WRONG: the slope between the smallest and the largest compute only.
def scaling(compute: Sequence[float], accuracy: Sequence[float]) -> float:
    if len(compute) != len(accuracy) or len(compute) < 2 or len(set(compute)) != len(compute):
        raise ValueError("need two or more distinct compute amounts, one accuracy each")
    lo, hi = compute.index(min(compute)), compute.index(max(compute))
    slopes = [(accuracy[hi] - accuracy[lo]) / (compute[hi] - compute[lo])]
    return sum(slopes) / len(slopes)
