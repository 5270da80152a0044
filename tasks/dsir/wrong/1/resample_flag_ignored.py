# wrong: Gumbel noise added even when resample is False (no top-k ablation)
def resample(log_weights, k, rng, resample=True):
    log_weights = np.asarray(log_weights, dtype=np.float64)
    n = log_weights.shape[0]
    if not 0 <= k <= n:
        raise ValueError(f"cannot select {k} of {n} examples")
    keys = log_weights + gumbel_noise(rng, n)
    return np.argsort(-keys, kind="stable")[:k].astype(np.int64)
