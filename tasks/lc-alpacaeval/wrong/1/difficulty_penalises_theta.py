# WRONG: puts the L2 penalty on the model terms theta_m of the joint fit too
def fit_instruction_difficulty(
    annotations: pd.DataFrame, baseline: str, models: Sequence[str] | None, config: DifficultyConfig
) -> pd.Series:
    """The instruction difficulties gamma_x (see `DifficultyConfig`), fitted jointly on several models.

    Args:
        annotations: the annotations table.
        baseline: the baseline's generator name.
        models: the models to fit on; None means every generator other than the baseline that the table
            compares with it.
        config: the joint fit's configuration.
    Returns:
        float64 Series of gamma_x indexed by instruction id (sorted ascending), covering every instruction
        of the models' comparisons, named "difficulty".
    Raises:
        ValueError: as `model_vs_baseline` does for any of the models, or if there is no model.
        RuntimeError: as `fit_logistic`.
    """
    check_columns(annotations)
    if models is None:
        pairs = annotations[["generator_1", "generator_2"]].to_numpy().astype(str)
        others = {b if a == baseline else a for a, b in pairs if (a == baseline) != (b == baseline)}
        models = sorted(others)
    if len(models) == 0:
        raise ValueError("no model to fit the instruction difficulties on")
    comparisons = [model_vs_baseline(annotations, m, baseline) for m in models]
    instructions = sorted({x for c in comparisons for x in c.instructions})
    column = {x: i for i, x in enumerate(instructions)}
    n_models = len(comparisons)
    rows, targets = [], []
    for m, comp in enumerate(comparisons):
        block = np.zeros((len(comp), n_models + len(instructions)))
        block[:, m] = 1.0
        block[np.arange(len(comp)), [n_models + column[x] for x in comp.instructions]] = -1.0
        rows.append(block)
        targets.append(comp.win_prob)
    l2 = np.full(n_models + len(instructions), config.l2_difficulty)
    coef = fit_logistic(np.concatenate(rows), np.concatenate(targets), l2, config.max_iter, config.tol)
    return pd.Series(coef[n_models:], index=pd.Index(instructions, name="instruction"), name="difficulty")
