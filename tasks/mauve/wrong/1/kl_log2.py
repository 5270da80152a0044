# wrong: KL in bits (log base 2) instead of nats
def kl_divergence(a, b):
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError("need two 1-D histograms of the same length")
    support = a > 0
    if np.any(b[support] <= 0):
        return float("inf")
    return float(np.sum(a[support] * np.log2(a[support] / b[support])))
