# WRONG: the cell means are not rounded to 2 decimals before the z-scores.
def empathy_matrix(predictions: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    kept = predictions[predictions["persona"].isin(groups) & predictions["experiencer"].isin(groups)]
    bad_items = kept.loc[kept["intensity"] == INVALID, "item"].unique()
    kept = kept[~kept["item"].isin(bad_items)]
    if kept.empty:
        raise ValueError("every item has an invalid prediction in some cell")
    means = kept.groupby(["persona", "experiencer"])["intensity"].mean().unstack("experiencer")
    matrix = means.loc[list(groups), list(groups)].to_numpy(dtype=np.float64)
    normalised = (matrix - matrix.mean()) / matrix.std()
    return pd.DataFrame(normalised, index=list(groups), columns=list(groups))
