# wrong: the comparison's standard error is the unpaired one of Eq. (10)
def compare_models(a, b, config):
    order = align(a, b)
    summary_a = summarize_model(a, config)
    summary_b = summarize_model(b, config)
    va = question_scores(a)
    vb = question_scores(b)[order]
    se = math.sqrt(summary_a.se**2 + summary_b.se**2)
    diff = float((va - vb).mean())
    ca, cb = va - va.mean(), vb - vb.mean()
    denom = math.sqrt(float((ca * ca).sum() * (cb * cb).sum()))
    correlation = float((ca * cb).sum()) / denom if denom > 0 else math.nan
    z = diff / se if se > 0 else math.nan
    return Comparison(name_a=a.name, name_b=b.name, n_questions=a.n_questions, diff=diff, se=se, se_unpaired=se,
                      correlation=correlation, z=z, p_value=two_sided_p(z), ci=interval(diff, se, config.confidence))
