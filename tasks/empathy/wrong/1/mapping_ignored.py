# WRONG: in-group means the same label; the social-group mapping (several labels per group) is ignored.
def empathy_gap(
    matrix: pd.DataFrame,
    social_group: Mapping[str, str] | None = None,
    exclude: Collection[str] = (NEUTRAL,),
) -> float:
    rows = [label for label in matrix.index if label not in exclude]
    cols = [label for label in matrix.columns if label not in exclude]
    values = matrix.loc[rows, cols].to_numpy(dtype=np.float64)
    same = np.array([[r == c for c in cols] for r in rows], dtype=bool).reshape(len(rows), len(cols))
    if not same.any() or same.all():
        raise ValueError("the gap needs both in-group and out-group cells")
    return float(values[same].mean() - values[~same].mean())
