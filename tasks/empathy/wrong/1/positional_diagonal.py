# WRONG: in-group cells are taken by position (the diagonal), ignoring labels and the social-group mapping.
def empathy_gap(
    matrix: pd.DataFrame,
    social_group: Mapping[str, str] | None = None,
    exclude: Collection[str] = (NEUTRAL,),
) -> float:
    rows = [i for i, label in enumerate(matrix.index) if label not in exclude]
    cols = [j for j, label in enumerate(matrix.columns) if label not in exclude]
    values = matrix.to_numpy(dtype=np.float64)[np.ix_(rows, cols)]
    same = np.eye(len(rows), len(cols), dtype=bool)
    if not same.any() or same.all():
        raise ValueError("the gap needs both in-group and out-group cells")
    return float(values[same].mean() - values[~same].mean())
