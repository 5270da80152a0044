# wrong: the average of per-document normalised count vectors instead of the pooled counts of Eq. (5)
def fit_feature_distribution(counts, smoothing):
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError("counts must be a 2-D (examples, buckets) array")
    c = counts.astype(np.float64) + float(smoothing)
    row = c.sum(axis=1, keepdims=True)
    if c.shape[0] == 0:
        if not smoothing > 0:
            raise ValueError("cannot fit a distribution: no counts and no smoothing")
        return np.full(counts.shape[1], 1.0 / counts.shape[1])
    if not np.all(row > 0):
        raise ValueError("cannot fit a distribution: no counts and no smoothing")
    return (c / row).mean(axis=0)
