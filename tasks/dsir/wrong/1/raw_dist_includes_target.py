# wrong: the raw model fitted on the raw and the target examples together
def dsir_select(raw_texts, target_texts, k, config, rng):
    raw_counts = featurize(raw_texts, config)
    target_counts = featurize(target_texts, config)
    target_dist = fit_feature_distribution(target_counts, config.smoothing)
    raw_dist = fit_feature_distribution(np.concatenate([raw_counts, target_counts], axis=0), config.smoothing)
    log_weights = importance_log_weights(raw_counts, target_dist, raw_dist)
    indices = resample(log_weights, k, rng, resample=config.resample)
    return Selection(indices, log_weights, target_dist, raw_dist)
