# wrong: log-weights divided by the number of n-grams of the example (an average instead of the sum)
def importance_log_weights(counts, target_dist, raw_dist):
    log_ratio = np.log(np.asarray(target_dist, dtype=np.float64)) - np.log(np.asarray(raw_dist, dtype=np.float64))
    counts = np.asarray(counts, dtype=np.float64)
    return (counts @ log_ratio) / np.maximum(counts.sum(axis=1), 1.0)
