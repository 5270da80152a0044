# WRONG: an item is dropped when it is invalid anywhere in the table, also in cells outside the analysed groups.
def empathy_matrix(predictions: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    bad_items = predictions.loc[predictions["intensity"] == INVALID, "item"].unique()
    kept = predictions[predictions["persona"].isin(groups) & predictions["experiencer"].isin(groups)]
    kept = kept[~kept["item"].isin(bad_items)]
    if kept.empty:
        raise ValueError("every item has an invalid prediction in some cell")
    means = kept.groupby(["persona", "experiencer"])["intensity"].mean().unstack("experiencer")
    matrix = means.loc[list(groups), list(groups)].to_numpy(dtype=np.float64).round(2)
    normalised = (matrix - matrix.mean()) / matrix.std()
    return pd.DataFrame(normalised, index=list(groups), columns=list(groups))
