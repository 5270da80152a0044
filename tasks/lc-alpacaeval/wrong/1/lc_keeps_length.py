# WRONG: averages the fitted GLM's predictions with the length term kept (the regression's fit, not Eq. (3))
def length_controlled_winrate(
    annotations: pd.DataFrame, model: str, baseline: str, difficulty: pd.Series, config: GLMConfig
) -> LCResult:
    """The raw and the length-controlled win rate (Eq. (3)) of `model` against `baseline`.

    Args:
        annotations: the annotations table.
        model, baseline: generator names.
        difficulty: gamma_x by instruction id, e.g. from `fit_instruction_difficulty`.
        config: the GLM's configuration.
    Returns:
        LCResult. When model == baseline nothing is fitted: n = 0, both win rates 50.0, coefficients 0.0.
    Raises:
        ValueError: as `model_vs_baseline` and `glm_features`.
        RuntimeError: as `fit_logistic`.
    """
    if model == baseline:
        return LCResult(model, baseline, 0, 50.0, 50.0, 0.0, 0.0, 0.0)
    comparison = model_vs_baseline(annotations, model, baseline)
    features = glm_features(comparison, difficulty, config)
    coef = fit_logistic(features, comparison.win_prob, np.asarray(config.l2()), config.max_iter, config.tol)
    controlled = features.copy()
    return LCResult(
        model=model,
        baseline=baseline,
        n=len(comparison),
        win_rate=100.0 * float(np.mean(comparison.win_prob)),
        lc_win_rate=100.0 * float(np.mean(logistic(controlled @ coef))),
        theta=float(coef[0]),
        phi=float(coef[1]),
        psi=float(coef[2]),
    )
