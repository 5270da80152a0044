# WRONG: rank counts the models whose interval lies entirely below (worse) instead of above
def rank_with_ci(ci_low: np.ndarray, ci_high: np.ndarray) -> np.ndarray:
    """Ranks of models from their confidence intervals (float (M,) each). Returns int64 (M,), 1 = best."""
    low = np.asarray(ci_low, dtype=np.float64)
    high = np.asarray(ci_high, dtype=np.float64)
    return 1 + (high[None, :] < low[:, None]).sum(axis=1).astype(np.int64)
