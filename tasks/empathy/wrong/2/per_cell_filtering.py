# WRONG: drops only the invalid predictions themselves, so each cell averages its own set of items.
def empathy_matrix(predictions: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    kept = predictions[predictions["persona"].isin(groups) & predictions["experiencer"].isin(groups)]
    kept = kept[kept["intensity"] != INVALID]
    if kept.empty:
        raise ValueError("no valid prediction")
    means = kept.groupby(["persona", "experiencer"])["intensity"].mean().unstack("experiencer")
    matrix = means.loc[list(groups), list(groups)].to_numpy(dtype=np.float64).round(2)
    normalised = (matrix - matrix.mean()) / matrix.std()
    return pd.DataFrame(normalised, index=list(groups), columns=list(groups))
