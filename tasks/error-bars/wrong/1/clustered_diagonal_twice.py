# wrong: Eq. (5)'s double sum taken over all pairs including j = i, so the diagonal is counted twice
def standard_errors(values, clusters):
    n = values.size
    var_clt = sample_variance(values) / n
    if clusters is None:
        return math.sqrt(var_clt), math.sqrt(var_clt)
    resid = values - values.mean()
    cross = 0.0
    for label in np.unique(clusters):
        cross += float(resid[clusters == label].sum() ** 2)
    return math.sqrt(var_clt), math.sqrt(var_clt + cross / n**2)
