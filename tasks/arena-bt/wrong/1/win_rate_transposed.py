# WRONG: entry (i, j) is the probability that model j beats model i
def win_rate_matrix(ratings: np.ndarray, cfg: RatingConfig) -> np.ndarray:
    """Predicted probability that model i beats model j, from ratings (M,) on the scale of cfg.
    Returns float64 (M, M)."""
    r = np.asarray(ratings, dtype=np.float64)
    return 1.0 / (1.0 + cfg.base ** ((r[:, None] - r[None, :]) / cfg.scale))
