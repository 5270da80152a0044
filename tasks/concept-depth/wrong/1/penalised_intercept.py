# WRONG: the L2 penalty is applied to the intercept as well
def fit_logistic_regression(X, y, l2=1e-2, max_iter=50, tol=1e-10):
    X = X.detach().to(torch.float64)
    y = y.detach().to(torch.float64)
    if l2 <= 0:
        raise ValueError("l2 must be positive")
    if not (y.min() == 0 and y.max() == 1):
        raise ValueError("y must contain both classes")
    n, d = X.shape
    A = torch.cat([X, torch.ones(n, 1, dtype=torch.float64)], dim=1)
    theta = torch.zeros(d + 1, dtype=torch.float64)
    for _ in range(max_iter):
        p = torch.sigmoid(A @ theta)
        grad = A.T @ (p - y) / n + l2 * theta
        if grad.abs().max() < tol:
            break
        hess = (A.T * (p * (1 - p))) @ A / n + l2 * torch.eye(d + 1, dtype=torch.float64)
        theta = theta - torch.linalg.solve(hess, grad)
    return theta[:-1], float(theta[-1])


# (unchanged reference)
def probe_layers(
    hidden_states: Union[Sequence[torch.Tensor], torch.Tensor],
    labels: torch.Tensor,
    test_fraction: float = 0.2,
    seed: int = 0,
    l2: float = 1e-2,
) -> list[LayerProbe]:
    """Train and evaluate one logistic-regression probe per layer.

    1. Split the examples once with `stratified_split(labels, test_fraction, seed)`; every layer uses the
       same split.
    2. For each layer, standardise the features with the training split's per-feature mean and standard
       deviation (population std, i.e. divided by n_train; a std of 0 is replaced by 1), applied to both splits.
    3. Fit `fit_logistic_regression(train features, train labels, l2)`.
    4. On the test split, the decision value is s = z . w + b; predict class 1 when s > 0. Report
       `accuracy` and `f1_binary` of the predictions and `roc_auc` of the decision values s
       (from `conceptdepth.metrics`).

    Args:
        hidden_states: (num_layers, num_examples, hidden_dim) tensor, or a sequence of (num_examples,
            hidden_dim) tensors, one per layer.
        labels: (num_examples,) binary labels: 0/1 integers, floats or booleans.

    Returns:
        One `LayerProbe(layer, accuracy, f1, auc, weight, bias)` per layer, in layer order; metrics are Python
        floats, `weight` the fitted float64 weights (for standardised features), `bias` a Python float.
    """
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
        results.append(LayerProbe(layer, accuracy(y_test, pred), f1_binary(y_test, pred), roc_auc(y_test, scores), w, b))
    return results
