# wrong: k independent draws with probabilities proportional to the weights (with replacement)
def resample(log_weights, k, rng, resample=True):
    log_weights = np.asarray(log_weights, dtype=np.float64)
    n = log_weights.shape[0]
    if not 0 <= k <= n:
        raise ValueError(f"cannot select {k} of {n} examples")
    if not resample:
        return np.argsort(-log_weights, kind="stable")[:k].astype(np.int64)
    w = np.exp(log_weights - log_weights.max()) if n else log_weights
    return rng.choice(n, size=k, replace=True, p=w / w.sum()).astype(np.int64)
