# wrong: the curve uses KL(R || Q) and KL(R || P) instead of KL(Q || R) and KL(P || R)
def divergence_curve(p_hist, q_hist, cfg):
    p = np.asarray(p_hist, dtype=np.float64)
    q = np.asarray(q_hist, dtype=np.float64)
    points = [(0.0, 1.0), (1.0, 0.0)]
    for lam in cfg.lambdas():
        r = lam * p + (1.0 - lam) * q
        points.append((np.exp(-cfg.scaling * kl_divergence(r, q)), np.exp(-cfg.scaling * kl_divergence(r, p))))
    curve = np.array(points, dtype=np.float64)
    return curve[np.lexsort((-curve[:, 1], curve[:, 0]))]
