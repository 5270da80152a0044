# wrong: the end points (0, 1) and (1, 0) are not added to the curve
def divergence_curve(p_hist, q_hist, cfg):
    p = np.asarray(p_hist, dtype=np.float64)
    q = np.asarray(q_hist, dtype=np.float64)
    points = []
    for lam in cfg.lambdas():
        r = lam * p + (1.0 - lam) * q
        points.append((np.exp(-cfg.scaling * kl_divergence(q, r)), np.exp(-cfg.scaling * kl_divergence(p, r))))
    curve = np.array(points, dtype=np.float64)
    return curve[np.lexsort((-curve[:, 1], curve[:, 0]))]
