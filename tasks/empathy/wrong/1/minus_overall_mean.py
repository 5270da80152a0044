# WRONG: subtracts the mean of all cells instead of the mean of the out-group cells.
def empathy_gap(
    matrix: pd.DataFrame,
    social_group: Mapping[str, str] | None = None,
    exclude: Collection[str] = (NEUTRAL,),
) -> float:
    rows = [label for label in matrix.index if label not in exclude]
    cols = [label for label in matrix.columns if label not in exclude]
    group = (lambda label: label) if social_group is None else social_group.__getitem__
    values = matrix.loc[rows, cols].to_numpy(dtype=np.float64)
    same = np.array([[group(r) == group(c) for c in cols] for r in rows], dtype=bool).reshape(len(rows), len(cols))
    if not same.any() or same.all():
        raise ValueError("the gap needs both in-group and out-group cells")
    return float(values[same].mean() - values.mean())
