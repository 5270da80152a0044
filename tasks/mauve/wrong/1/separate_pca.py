# wrong: P's and Q's features are preprocessed (normalised and PCA-projected) separately before the joint k-means
def quantize(p_features, q_features, cfg):
    p = np.asarray(p_features, dtype=np.float64)
    q = np.asarray(q_features, dtype=np.float64)
    if p.ndim != 2 or q.ndim != 2 or p.shape[1] != q.shape[1] or len(p) == 0 or len(q) == 0:
        raise ValueError("bad features")
    k = cfg.buckets(len(p), len(q))
    pp, qq = prepare_features(p, cfg), prepare_features(q, cfg)
    d = min(pp.shape[1], qq.shape[1])
    labels = kmeans(np.concatenate([pp[:, :d], qq[:, :d]]), k, cfg).labels
    p_labels, q_labels = labels[: len(p)], labels[len(p):]
    return Quantized(np.bincount(p_labels, minlength=k) / len(p), np.bincount(q_labels, minlength=k) / len(q),
                     p_labels, q_labels, k)
