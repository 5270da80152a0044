# wrong: omega2 taken as the pilot's variance of differences, the pilot's sigma^2/K terms not removed (Eq. (14))
def plan_from_pilot(a, b, effect, alpha=0.05, power=0.8, k_a=1, k_b=1):
    order = align(a, b)
    if a.n_questions < 2:
        raise ValueError("a pilot needs at least two questions")
    diffs = question_scores(a) - question_scores(b)[order]
    sigma2 = []
    for table, rows in ((a, np.arange(a.n_questions)), (b, order)):
        if table.kind == "probability":
            sigma2.append(0.0)
            continue
        per_question = per_question_variance(table.scores, table.mask)[rows]
        if bool(np.isnan(per_question).any()):
            raise ValueError(f"every question of {table.name} needs at least two answers")
        sigma2.append(float(per_question.mean()))
    return PowerSpec(effect=effect, omega2=sample_variance(diffs), sigma2_a=sigma2[0], sigma2_b=sigma2[1],
                     alpha=alpha, power=power, k_a=k_a, k_b=k_b)
