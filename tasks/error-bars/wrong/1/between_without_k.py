# wrong: Var(x) = Var(s_bar) - E[sigma^2], forgetting that resampling divides the conditional variance by K
def variance_components(table, values):
    between_total = sample_variance(values)
    if table.kind == "probability":
        return 0.0, between_total
    sigma2 = per_question_variance(table.scores, table.mask)
    if bool(np.isnan(sigma2).any()):
        return math.nan, math.nan
    return float(sigma2.mean()), between_total - float(sigma2.mean())
