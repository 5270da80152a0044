# wrong: clustered standard errors whenever the table has labels, even with cluster_se=False
def summarize_model(table, config):
    if table.n_questions < 2:
        raise ValueError("a standard error needs at least two questions")
    values = question_scores(table)
    se_clt, se = standard_errors(values, table.clusters)
    mean = float(values.mean())
    within, between = variance_components(table, values)
    n_clusters = None if table.clusters is None else int(np.unique(table.clusters).size)
    return ModelSummary(name=table.name, n_questions=table.n_questions, n_clusters=n_clusters, mean=mean, se=se,
                        se_clt=se_clt, ci=interval(mean, se, config.confidence), within_var=within,
                        between_var=between)
