# wrong: KL(p, p_selected) - KL(p, q_raw), the reduction with its sign flipped
def kl_reduction(selected_counts, raw_counts, target_counts, smoothing):
    if len(target_counts) == 0:
        raise ValueError("need at least one target dataset")
    raw = fit_feature_distribution(raw_counts, smoothing)
    selected = fit_feature_distribution(selected_counts, smoothing)
    total = 0.0
    for counts in target_counts:
        target = fit_feature_distribution(counts, smoothing)
        total += kl_divergence(target, selected) - kl_divergence(target, raw)
    return total / len(target_counts)
