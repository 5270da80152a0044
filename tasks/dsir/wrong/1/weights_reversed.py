# wrong: log q_raw - log p_target (the ratio upside down)
def importance_log_weights(counts, target_dist, raw_dist):
    log_ratio = np.log(np.asarray(raw_dist, dtype=np.float64)) - np.log(np.asarray(target_dist, dtype=np.float64))
    return np.asarray(counts, dtype=np.float64) @ log_ratio
