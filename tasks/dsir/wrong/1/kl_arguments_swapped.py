# wrong: KL(q || p) computed for kl_divergence(p, q)
def kl_divergence(p, q):
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    mask = q > 0
    return float(np.sum(q[mask] * (np.log(q[mask]) - np.log(p[mask]))))
