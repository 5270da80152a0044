"""Linear probes on every layer's hidden states."""
from __future__ import annotations

from typing import NamedTuple, Sequence, Union

import torch

from conceptdepth.data import stratified_split
from conceptdepth.metrics import accuracy, f1_binary, roc_auc


class LayerProbe(NamedTuple):
    layer: int
    accuracy: float  # on the test split
    f1: float  # positive class 1, on the test split
    auc: float  # ROC AUC of the decision values on the test split
    weight: torch.Tensor  # (hidden_dim,) float64, for standardised features
    bias: float


def fit_logistic_regression(
    X: torch.Tensor,
    y: torch.Tensor,
    l2: float = 1e-2,
    max_iter: int = 50,
    tol: float = 1e-10,
) -> tuple[torch.Tensor, float]:
    """L2-regularised logistic regression fitted by Newton's method.

    Minimises, over w in R^d and the intercept b,

        J(w, b) = (1/n) * sum_i [ log(1 + exp(s_i)) - y_i * s_i ] + (l2 / 2) * ||w||^2,   s_i = x_i . w + b,

    (the intercept is not penalised). Start from w = 0, b = 0 and repeat at most `max_iter` times: compute the
    gradient g of J; if max_j |g_j| < tol, stop; otherwise take the Newton step (w, b) <- (w, b) - H^{-1} g,
    with H the Hessian of J. All arithmetic in float64.

    Args:
        X: (n, d) features. y: (n,) labels in {0, 1} (any dtype); both classes must be present.
        l2: the penalty strength, > 0. max_iter: the most Newton steps. tol: gradient tolerance.

    Returns:
        (w, b): w a float64 tensor of shape (d,), b a Python float.

    Raises:
        ValueError: if l2 <= 0 or y does not contain both classes.
    """
    if l2 <= 0:
        raise ValueError("l2 must be positive")
    target = y.detach().to(torch.float64)
    if not (target.min() == 0 and target.max() == 1):
        raise ValueError("y must contain both classes")
    n, d = X.shape
    # features in float64, plus a last column of ones that multiplies the intercept
    A = torch.cat([X.detach().to(torch.float64), torch.ones(n, 1, dtype=torch.float64)], dim=1)
    penalty = torch.full((d + 1,), l2, dtype=torch.float64)
    penalty[-1] = 0.0
    theta = torch.zeros(d + 1, dtype=torch.float64)
    for _ in range(max_iter):
        p = torch.sigmoid(A @ theta)
        grad = A.T @ (p - target) / n + penalty * theta
        if grad.abs().max() < tol:
            break
        hess = (A.T * (p * (1 - p))) @ A / n + torch.diag(penalty)
        theta = theta - torch.linalg.solve(hess, grad)
    return theta[:-1], float(theta[-1])


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
