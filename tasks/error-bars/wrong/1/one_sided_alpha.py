# wrong: z_alpha (one-sided) instead of z_{alpha/2} in Eq. (15)
def sample_size(spec):
    if not spec.effect > 0:
        raise ValueError("the effect must be positive")
    if not (0 < spec.alpha < 1 and 0 < spec.power < 1):
        raise ValueError("alpha and power must lie in (0, 1)")
    if min(spec.omega2, spec.sigma2_a, spec.sigma2_b) < 0:
        raise ValueError("variances cannot be negative")
    if min(spec.k_a, spec.k_b) < 1:
        raise ValueError("at least one answer per question")
    z = normal_quantile(1 - spec.alpha) + normal_quantile(spec.power)
    variance = spec.omega2 + spec.sigma2_a / spec.k_a + spec.sigma2_b / spec.k_b
    return max(1, math.ceil(z**2 * variance / spec.effect**2))
