# WRONG: inverse-probability weights normalised to mean one
def bt_design(log: VoteLog, cfg: RatingConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The regression problem of a vote log.

    Returns (X, y, w): X float64 (n', M) design matrix, y float64 (n',) targets in [0, 1], w float64 (n',)
    per-vote weights, n' the number of votes kept under cfg.ties. Raises ValueError for an unknown cfg.ties.
    """
    if cfg.ties not in ("half", "drop"):
        raise ValueError(f"unknown tie handling {cfg.ties!r}")
    keep = np.ones(len(log), dtype=bool) if cfg.ties == "half" else ~log.is_tie()
    a, b, y, p = log.model_a[keep], log.model_b[keep], log.outcome[keep], log.prob[keep]
    n = a.shape[0]
    X = np.zeros((n, log.n_models), dtype=np.float64)
    X[np.arange(n), a] = 1.0
    X[np.arange(n), b] = -1.0
    w = (1.0 / p) / np.mean(1.0 / p) if cfg.reweight else np.ones(n, dtype=np.float64)
    return X, y.astype(np.float64), w.astype(np.float64)
