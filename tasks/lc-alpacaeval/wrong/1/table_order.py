# WRONG: keeps the table's row order instead of sorting by instruction
def model_vs_baseline(annotations: pd.DataFrame, model: str, baseline: str) -> Comparison:
    """The judged comparisons of `model` with `baseline` in an annotations table (schema: `lcae.annotations`).

    Rows that compare other generators are ignored, and so are rows whose preference is NaN.

    Returns:
        Comparison: one entry per instruction, sorted by instruction id.
    Raises:
        ValueError: if a column is missing, if model == baseline, if a used row's preference lies outside
            [1, 2], if an instruction has more than one used row, or if no row is left.
    """
    check_columns(annotations)
    if model == baseline:
        raise ValueError("model and baseline must differ")
    first = (annotations["generator_1"] == baseline) & (annotations["generator_2"] == model)
    second = (annotations["generator_1"] == model) & (annotations["generator_2"] == baseline)
    rows = annotations[(first | second) & annotations["preference"].notna()]
    pref = rows["preference"].to_numpy(dtype=np.float64)
    if np.any((pref < 1.0) | (pref > 2.0)):
        raise ValueError("preferences must lie in [1, 2]")
    if rows["instruction"].duplicated().any():
        raise ValueError("an instruction has more than one annotation for this pair")
    if len(rows) == 0:
        raise ValueError(f"no annotated comparison of {model!r} with {baseline!r}")
    model_second = (rows["generator_2"] == model).to_numpy()
    len_1 = np.array([output_length(t) for t in rows["output_1"]], dtype=np.int64)
    len_2 = np.array([output_length(t) for t in rows["output_2"]], dtype=np.int64)
    order = np.arange(len(rows))
    return Comparison(
        model=model,
        baseline=baseline,
        instructions=tuple(str(x) for x in rows["instruction"].to_numpy()[order]),
        win_prob=np.where(model_second, pref - 1.0, 2.0 - pref)[order],
        model_len=np.where(model_second, len_2, len_1)[order],
        baseline_len=np.where(model_second, len_1, len_2)[order],
    )
