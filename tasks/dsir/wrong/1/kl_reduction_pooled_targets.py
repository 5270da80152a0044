# wrong: all target datasets pooled into one distribution instead of the mean over target datasets
def kl_reduction(selected_counts, raw_counts, target_counts, smoothing):
    if len(target_counts) == 0:
        raise ValueError("need at least one target dataset")
    raw = fit_feature_distribution(raw_counts, smoothing)
    selected = fit_feature_distribution(selected_counts, smoothing)
    target = fit_feature_distribution(np.concatenate([np.asarray(c) for c in target_counts], axis=0), smoothing)
    return kl_divergence(target, raw) - kl_divergence(target, selected)
