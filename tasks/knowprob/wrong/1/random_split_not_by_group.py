# WRONG: the probe is trained on every example (the held-out group included), i.e. the split ignores relation groups.
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
        scaler = Standardizer().fit(x)
        probe = LogisticRegressionProbe(l2=l2, max_iter=max_iter, tol=tol)
        probe.fit(scaler.transform(x), y)
        xt = scaler.transform(x[test])
        proba = probe.predict_proba(xt)
        pred = probe.predict(xt)
        results[g] = {"accuracy": float(np.mean(pred == y[test])), "n_train": int(train.sum()),
                      "n_test": int(test.sum()), "test_proba": proba}
    return results
