# WRONG: the probe is trained on raw activations (no standardisation), so the L2 penalty acts on unscaled features.
def classify_by_relation_group(features, labels, groups, *, l2=1e-2, max_iter=100, tol=1e-10):
    x = np.asarray(features, dtype=np.float64)
    labels = np.asarray(labels, dtype=object)
    groups = np.asarray(groups, dtype=object)
    unknown = set(labels.tolist()) - set(KNOWLEDGE_SOURCES)
    if unknown:
        raise ValueError(f"unknown knowledge-source labels: {sorted(unknown)}")
    keep = labels != "ND"
    x, labels, groups = x[keep], labels[keep], groups[keep]
    y = (labels == "PK").astype(np.int64)
    results = {}
    for g in sorted(set(groups.tolist())):
        test = groups == g
        train = ~test
        if len(set(y[train].tolist())) < 2:
            continue
        probe = LogisticRegressionProbe(l2=l2, max_iter=max_iter, tol=tol).fit(x[train], y[train])
        proba = probe.predict_proba(x[test])
        pred = probe.predict(x[test])
        results[g] = {"accuracy": float(np.mean(pred == y[test])), "n_train": int(train.sum()),
                      "n_test": int(test.sum()), "test_proba": proba}
    return results
