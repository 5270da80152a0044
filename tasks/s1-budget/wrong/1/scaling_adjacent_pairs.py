# WRONG: averages the slopes of adjacent points (sorted by compute) instead of all pairs.
def scaling(compute: Sequence[float], accuracy: Sequence[float]) -> float:
    if len(compute) != len(accuracy) or len(compute) < 2 or len(set(compute)) != len(compute):
        raise ValueError("need two or more distinct compute amounts, one accuracy each")
    pts = sorted(zip(compute, accuracy))
    slopes = [(b[1] - a[1]) / (b[0] - a[0]) for a, b in zip(pts, pts[1:])]
    return sum(slopes) / len(slopes)
