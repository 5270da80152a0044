# WRONG: ROC AUC computed from the hard 0/1 predictions instead of the decision values
def probe_layers(hidden_states, labels, test_fraction=0.2, seed=0, l2=1e-2):
    labels = labels.long()
    train_idx, test_idx = stratified_split(labels, test_fraction, seed)
    y_train, y_test = labels[train_idx], labels[test_idx]
    results = []
    for layer, h in enumerate(hidden_states):
        h = h.detach().to(torch.float64)
        x_train, x_test = h[train_idx], h[test_idx]
        mean = x_train.mean(dim=0)
        std = x_train.std(dim=0, unbiased=False)
        std = torch.where(std > 0, std, torch.ones_like(std))
        w, b = fit_logistic_regression((x_train - mean) / std, y_train, l2)
        scores = (x_test - mean) / std @ w + b
        pred = (scores > 0).long()
        results.append(LayerProbe(layer, accuracy(y_test, pred), f1_binary(y_test, pred), roc_auc(y_test, pred), w, b))
    return results
