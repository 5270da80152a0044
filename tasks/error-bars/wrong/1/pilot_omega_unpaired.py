# wrong: omega2 = Var(x_A) + Var(x_B), the covariance of the two models' conditional means left out
def plan_from_pilot(a, b, effect, alpha=0.05, power=0.8, k_a=1, k_b=1):
    order = align(a, b)
    if a.n_questions < 2:
        raise ValueError("a pilot needs at least two questions")
    noise = 0.0
    sigma2 = []
    for table, rows in ((a, np.arange(a.n_questions)), (b, order)):
        if table.kind == "probability":
            sigma2.append(0.0)
            continue
        per_question = per_question_variance(table.scores, table.mask)[rows]
        if bool(np.isnan(per_question).any()):
            raise ValueError(f"every question of {table.name} needs at least two answers")
        sigma2.append(float(per_question.mean()))
        noise += float((per_question / table.samples_per_question[rows]).mean())
    total = sample_variance(question_scores(a)) + sample_variance(question_scores(b))
    return PowerSpec(effect=effect, omega2=max(0.0, total - noise), sigma2_a=sigma2[0], sigma2_b=sigma2[1],
                     alpha=alpha, power=power, k_a=k_a, k_b=k_b)
