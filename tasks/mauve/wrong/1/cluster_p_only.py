# wrong: the clusters are fit on P's samples only and Q's samples are assigned to the nearest of them
def quantize(p_features, q_features, cfg):
    from mauve.kmeans import assign
    p = np.asarray(p_features, dtype=np.float64)
    q = np.asarray(q_features, dtype=np.float64)
    if p.ndim != 2 or q.ndim != 2 or p.shape[1] != q.shape[1] or len(p) == 0 or len(q) == 0:
        raise ValueError("bad features")
    k = cfg.buckets(len(p), len(q))
    joint = prepare_features(np.concatenate([p, q]), cfg)
    fit = kmeans(joint[: len(p)], k, cfg)
    p_labels, q_labels = fit.labels, assign(joint[len(p):], fit.centers)
    return Quantized(np.bincount(p_labels, minlength=k) / len(p), np.bincount(q_labels, minlength=k) / len(q),
                     p_labels, q_labels, k)
