# wrong: the eval score is the mean over all answers, so questions with more answers weigh more
def summarize_model(table, config):
    if table.n_questions < 2:
        raise ValueError("a standard error needs at least two questions")
    values = question_scores(table)
    clusters = table.clusters if config.cluster_se else None
    se_clt, se = standard_errors(values, clusters)
    mean = float(table.scores[table.mask].mean())
    within, between = variance_components(table, values)
    n_clusters = None if table.clusters is None else int(np.unique(table.clusters).size)
    return ModelSummary(name=table.name, n_questions=table.n_questions, n_clusters=n_clusters, mean=mean, se=se,
                        se_clt=se_clt, ci=interval(mean, se, config.confidence), within_var=within,
                        between_var=between)
