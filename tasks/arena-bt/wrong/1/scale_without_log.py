# WRONG: ratings are scale * xi (the ln(base) conversion of Eq. (5) missing)
def to_elo(xi: np.ndarray, models: tuple[str, ...], cfg: RatingConfig) -> np.ndarray:
    """Strengths xi (..., M) on the rating scale of cfg, shifted per row. Returns float64 (..., M).
    Raises ValueError if cfg.anchor_model is set and not in models."""
    r = np.asarray(xi, dtype=np.float64) * cfg.scale
    if cfg.anchor_model is None:
        return r - r.mean(axis=-1, keepdims=True) + cfg.init_rating
    if cfg.anchor_model not in models:
        raise ValueError(f"anchor model {cfg.anchor_model!r} not in the log")
    k = models.index(cfg.anchor_model)
    return r - r[..., k:k + 1] + cfg.anchor_rating
