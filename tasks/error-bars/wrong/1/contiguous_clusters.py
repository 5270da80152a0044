# wrong: a cluster taken as a run of consecutive equal labels (questions assumed sorted by cluster)
def standard_errors(values, clusters):
    n = values.size
    var_clt = sample_variance(values) / n
    if clusters is None:
        return math.sqrt(var_clt), math.sqrt(var_clt)
    resid = values - values.mean()
    cross, start = 0.0, 0
    for i in range(1, n + 1):
        if i == n or clusters[i] != clusters[start]:
            r = resid[start:i]
            cross += float(r.sum() ** 2 - (r * r).sum())
            start = i
    return math.sqrt(var_clt), math.sqrt(var_clt + cross / n**2)
