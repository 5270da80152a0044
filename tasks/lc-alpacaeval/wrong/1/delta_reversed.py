# WRONG: length difference taken as len(z_b) - len(z_m)
def glm_features(comparison: Comparison, difficulty: pd.Series, config: GLMConfig) -> np.ndarray:
    """The design matrix of Eq. (2) for one model's comparisons.

    Args:
        comparison: the model's comparisons with the baseline.
        difficulty: gamma_x by instruction id (float64), e.g. from `fit_instruction_difficulty`; it may cover
            more instructions than the comparison.
        config: the GLM's configuration.
    Returns:
        (n, 3) float64 array, one row per entry of `comparison`, the columns matching the coefficients
        (theta, phi, psi) of `GLMConfig`.
    Raises:
        ValueError: if fewer than two comparisons, if all length differences are equal, or if `difficulty`
            lacks an instruction of the comparison.
    """
    if len(comparison) < 2:
        raise ValueError("at least two comparisons are needed")
    missing = [x for x in comparison.instructions if x not in difficulty.index]
    if missing:
        raise ValueError(f"no difficulty for instructions {missing[:5]}")
    delta = (comparison.baseline_len - comparison.model_len).astype(np.float64)
    scale = np.std(delta, ddof=config.length_std_ddof)
    if not scale > 0:
        raise ValueError("the length differences have no spread")
    gamma = difficulty.loc[list(comparison.instructions)].to_numpy(dtype=np.float64)
    return np.stack([np.ones_like(delta), np.tanh(delta / scale), gamma], axis=1)
