# wrong: the textbook cluster-robust variance (1/n^2) sum_c (sum_i r_i)^2 instead of Eq. (5) (diagonal / n^2)
def standard_errors(values, clusters):
    n = values.size
    var_clt = sample_variance(values) / n
    if clusters is None:
        return math.sqrt(var_clt), math.sqrt(var_clt)
    resid = values - values.mean()
    total = 0.0
    for label in np.unique(clusters):
        total += float(resid[clusters == label].sum() ** 2)
    return math.sqrt(var_clt), math.sqrt(total / n**2)
