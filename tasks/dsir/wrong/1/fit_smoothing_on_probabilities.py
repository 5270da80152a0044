# wrong: the pseudocount added to the normalised probabilities instead of to the counts
def fit_feature_distribution(counts, smoothing):
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError("counts must be a 2-D (examples, buckets) array")
    totals = counts.sum(axis=0, dtype=np.float64)
    z = totals.sum()
    if not z > 0:
        if not smoothing > 0:
            raise ValueError("cannot fit a distribution: no counts and no smoothing")
        return np.full(counts.shape[1], 1.0 / counts.shape[1])
    p = totals / z + float(smoothing)
    return p / p.sum()
