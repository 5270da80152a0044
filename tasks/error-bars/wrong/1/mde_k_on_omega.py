# wrong: resampling credited with dividing the whole variance by K, omega2 included
def detectable_effect(n_questions, omega2, sigma2_a, sigma2_b, alpha=0.05, power=0.8, k_a=1, k_b=1):
    if n_questions < 1:
        raise ValueError("at least one question")
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")
    if min(omega2, sigma2_a, sigma2_b) < 0:
        raise ValueError("variances cannot be negative")
    if min(k_a, k_b) < 1:
        raise ValueError("at least one answer per question")
    z = critical_value(1 - alpha) + normal_quantile(power)
    k = min(k_a, k_b)
    return z * math.sqrt((omega2 / k + sigma2_a / k_a + sigma2_b / k_b) / n_questions)
