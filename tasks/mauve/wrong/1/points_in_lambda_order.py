# wrong: the points are left in the order of increasing lambda (decreasing x), between the end points
def divergence_curve(p_hist, q_hist, cfg):
    p = np.asarray(p_hist, dtype=np.float64)
    q = np.asarray(q_hist, dtype=np.float64)
    points = [(1.0, 0.0)]
    for lam in cfg.lambdas():
        r = lam * p + (1.0 - lam) * q
        points.append((np.exp(-cfg.scaling * kl_divergence(q, r)), np.exp(-cfg.scaling * kl_divergence(p, r))))
    points.append((0.0, 1.0))
    return np.array(points, dtype=np.float64)
