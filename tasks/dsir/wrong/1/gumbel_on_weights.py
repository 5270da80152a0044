# wrong: Gumbel noise added to the weights themselves instead of their logs
def resample(log_weights, k, rng, resample=True):
    log_weights = np.asarray(log_weights, dtype=np.float64)
    n = log_weights.shape[0]
    if not 0 <= k <= n:
        raise ValueError(f"cannot select {k} of {n} examples")
    keys = np.exp(log_weights) + gumbel_noise(rng, n) if resample else log_weights
    return np.argsort(-keys, kind="stable")[:k].astype(np.int64)
