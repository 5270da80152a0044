# wrong: SE_CLT from the population variance (divisor n) instead of Eq. (3)'s n - 1
def standard_errors(values, clusters):
    n = values.size
    var_clt = float(((values - values.mean()) ** 2).mean()) / n
    if clusters is None:
        return math.sqrt(var_clt), math.sqrt(var_clt)
    resid = values - values.mean()
    cross = 0.0
    for label in np.unique(clusters):
        r = resid[clusters == label]
        cross += float(r.sum() ** 2 - (r * r).sum())
    return math.sqrt(var_clt), math.sqrt(var_clt + cross / n**2)
