# WRONG: the negative log-likelihood is averaged over votes instead of summed before adding the penalty
def fit_bradley_terry(log: VoteLog, cfg: RatingConfig) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry strengths of the models of `log`.

    Returns float64 (M,) strengths xi on the natural-log-odds scale, in the log's model order.
    Raises ValueError if cfg.l2 is not positive or cfg.ties is unknown.
    """
    if not cfg.l2 > 0:
        raise ValueError("l2 must be positive")
    X, y, w = bt_design(log, cfg)
    xi = np.zeros(log.n_models, dtype=np.float64)
    eye = np.eye(log.n_models)
    for _ in range(cfg.max_iter):
        p = sigmoid(X @ xi)
        grad = X.T @ (w * (p - y)) / len(y) + cfg.l2 * xi
        hess = (X * (w * p * (1.0 - p))[:, None]).T @ X / len(y) + cfg.l2 * eye
        step = np.linalg.solve(hess, grad)
        xi = xi - step
        if np.max(np.abs(step)) < cfg.tol:
            break
    return xi
