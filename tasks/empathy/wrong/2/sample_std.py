# WRONG: z-scores with the sample standard deviation (ddof=1, the pandas default) instead of the population one.
def empathy_matrix(predictions: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    kept = predictions[predictions["persona"].isin(groups) & predictions["experiencer"].isin(groups)]
    bad_items = kept.loc[kept["intensity"] == INVALID, "item"].unique()
    kept = kept[~kept["item"].isin(bad_items)]
    if kept.empty:
        raise ValueError("every item has an invalid prediction in some cell")
    means = kept.groupby(["persona", "experiencer"])["intensity"].mean().unstack("experiencer")
    matrix = means.loc[list(groups), list(groups)].round(2)
    stacked = matrix.stack()
    return ((matrix - stacked.mean()) / stacked.std()).astype("float64")
