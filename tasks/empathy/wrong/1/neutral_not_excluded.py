# WRONG: the excluded (neutral) identity is kept in the matrix as an ordinary group.
def empathy_gap(
    matrix: pd.DataFrame,
    social_group: Mapping[str, str] | None = None,
    exclude: Collection[str] = (NEUTRAL,),
) -> float:
    rows = list(matrix.index)
    cols = list(matrix.columns)
    group = (lambda label: label) if social_group is None else (lambda label: social_group.get(label, label))
    values = matrix.loc[rows, cols].to_numpy(dtype=np.float64)
    same = np.array([[group(r) == group(c) for c in cols] for r in rows], dtype=bool).reshape(len(rows), len(cols))
    if not same.any() or same.all():
        raise ValueError("the gap needs both in-group and out-group cells")
    return float(values[same].mean() - values[~same].mean())
