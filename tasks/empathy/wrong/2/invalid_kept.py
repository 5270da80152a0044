# WRONG: invalid predictions (-1) are averaged in like real intensities.
def empathy_matrix(predictions: pd.DataFrame, groups: Sequence[str]) -> pd.DataFrame:
    kept = predictions[predictions["persona"].isin(groups) & predictions["experiencer"].isin(groups)]
    if kept.empty:
        raise ValueError("no prediction")
    means = kept.groupby(["persona", "experiencer"])["intensity"].mean().unstack("experiencer")
    matrix = means.loc[list(groups), list(groups)].to_numpy(dtype=np.float64).round(2)
    normalised = (matrix - matrix.mean()) / matrix.std()
    return pd.DataFrame(normalised, index=list(groups), columns=list(groups))
