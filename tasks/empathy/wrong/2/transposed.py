# WRONG: rows are the experiencers and columns the perceivers (the matrix is transposed).
def empathy_matrix(predictions: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    kept = predictions[predictions["persona"].isin(groups) & predictions["experiencer"].isin(groups)]
    bad_items = kept.loc[kept["intensity"] == INVALID, "item"].unique()
    kept = kept[~kept["item"].isin(bad_items)]
    if kept.empty:
        raise ValueError("every item has an invalid prediction in some cell")
    means = kept.groupby(["experiencer", "persona"])["intensity"].mean().unstack("persona")
    matrix = means.loc[list(groups), list(groups)].to_numpy(dtype=np.float64).round(2)
    normalised = (matrix - matrix.mean()) / matrix.std()
    return pd.DataFrame(normalised, index=list(groups), columns=list(groups))
