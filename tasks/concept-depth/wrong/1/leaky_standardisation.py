# WRONG: standardises with statistics of all examples (train and test) instead of the training split only
def probe_layers(hidden_states, labels, test_fraction=0.2, seed=0, l2=1e-2):
    labels = labels.long()
    train_idx, test_idx = stratified_split(labels, test_fraction, seed)
    y_train, y_test = labels[train_idx], labels[test_idx]
    results = []
    for layer, h in enumerate(hidden_states):
        h = h.detach().to(torch.float64)
        mean = h.mean(dim=0)
        std = h.std(dim=0, unbiased=False)
        std = torch.where(std > 0, std, torch.ones_like(std))
        z = (h - mean) / std
        w, b = fit_logistic_regression(z[train_idx], y_train, l2)
        scores = z[test_idx] @ w + b
        pred = (scores > 0).long()
        results.append(LayerProbe(layer, accuracy(y_test, pred), f1_binary(y_test, pred), roc_auc(y_test, scores), w, b))
    return results
