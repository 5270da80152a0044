# wrong: next-token probability tables treated like one sampled answer each (within_var NaN, Eq. (9) ignored)
def variance_components(table, values):
    sigma2 = per_question_variance(table.scores, table.mask)
    if bool(np.isnan(sigma2).any()):
        return math.nan, math.nan
    counts = table.samples_per_question
    return float(sigma2.mean()), sample_variance(values) - float((sigma2 / counts).mean())
