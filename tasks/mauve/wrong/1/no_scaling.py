# wrong: the scaling constant c is left out of the exponent
def divergence_curve(p_hist, q_hist, cfg):
    p = np.asarray(p_hist, dtype=np.float64)
    q = np.asarray(q_hist, dtype=np.float64)
    points = [(0.0, 1.0), (1.0, 0.0)]
    for lam in cfg.lambdas():
        r = lam * p + (1.0 - lam) * q
        points.append((np.exp(-kl_divergence(q, r)), np.exp(-kl_divergence(p, r))))
    curve = np.array(points, dtype=np.float64)
    return curve[np.lexsort((-curve[:, 1], curve[:, 0]))]
