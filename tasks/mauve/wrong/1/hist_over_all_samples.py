# wrong: both histograms are divided by the total number of samples n_p + n_q, not by their own sample count
def quantize(p_features, q_features, cfg):
    p = np.asarray(p_features, dtype=np.float64)
    q = np.asarray(q_features, dtype=np.float64)
    if p.ndim != 2 or q.ndim != 2 or p.shape[1] != q.shape[1] or len(p) == 0 or len(q) == 0:
        raise ValueError("bad features")
    k = cfg.buckets(len(p), len(q))
    labels = kmeans(prepare_features(np.concatenate([p, q]), cfg), k, cfg).labels
    p_labels, q_labels = labels[: len(p)], labels[len(p):]
    n = len(p) + len(q)
    return Quantized(np.bincount(p_labels, minlength=k) / n, np.bincount(q_labels, minlength=k) / n,
                     p_labels, q_labels, k)
