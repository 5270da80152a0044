"""Linear probes: feature standardisation and L2-regularised logistic regression.

Plain numpy, float64, deterministic (Newton's method from a zero start), so a
probe trained twice on the same data gives the same weights.
"""

from __future__ import annotations

import numpy as np


class Standardizer:
    """Per-feature z-scoring: ``(x - mean) / std`` with statistics of the data
    passed to :meth:`fit` (population std, ``ddof=0``; a zero std is replaced by 1)."""

    def fit(self, x: np.ndarray) -> "Standardizer":
        x = np.asarray(x, dtype=np.float64)
        self.mean_ = x.mean(axis=0)
        std = x.std(axis=0)
        self.std_ = np.where(std > 0, std, 1.0)
        return self

    def transform(self, x: np.ndarray) -> np.ndarray:
        return (np.asarray(x, dtype=np.float64) - self.mean_) / self.std_

    def fit_transform(self, x: np.ndarray) -> np.ndarray:
        return self.fit(x).transform(x)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out


class LogisticRegressionProbe:
    """Binary logistic regression with an unpenalised intercept.

    Minimises ``mean_i [log(1 + exp(z_i)) - y_i z_i] + (l2 / 2) * ||w||^2`` with
    ``z_i = x_i . w + b`` by Newton's method, starting from ``w = 0, b = 0``.
    ``y`` must contain both classes 0 and 1.
    """

    def __init__(self, l2: float = 1e-2, max_iter: int = 100, tol: float = 1e-10):
        self.l2 = float(l2)
        self.max_iter = int(max_iter)
        self.tol = float(tol)

    def fit(self, x: np.ndarray, y: np.ndarray) -> "LogisticRegressionProbe":
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if x.ndim != 2 or y.shape != (x.shape[0],):
            raise ValueError("x must be [n, d] and y [n]")
        if not (np.any(y == 1) and np.any(y == 0)) or not np.all((y == 0) | (y == 1)):
            raise ValueError("y must be 0/1 and contain both classes")
        n, d = x.shape
        x1 = np.hstack([x, np.ones((n, 1))])
        reg = np.full(d + 1, self.l2)
        reg[-1] = 0.0
        theta = np.zeros(d + 1)
        for _ in range(self.max_iter):
            p = _sigmoid(x1 @ theta)
            grad = x1.T @ (p - y) / n + reg * theta
            hess = (x1.T * (p * (1 - p))) @ x1 / n + np.diag(reg)
            step = np.linalg.solve(hess, grad)
            theta = theta - step
            if np.max(np.abs(step)) < self.tol:
                break
        self.coef_ = theta[:-1]
        self.intercept_ = float(theta[-1])
        return self

    def decision_function(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(x, dtype=np.float64) @ self.coef_ + self.intercept_

    def predict_proba(self, x: np.ndarray) -> np.ndarray:
        """Probability of class 1, shape [n]."""
        return _sigmoid(self.decision_function(x))

    def predict(self, x: np.ndarray) -> np.ndarray:
        """Class 1 where the probability is strictly above 0.5, else 0 (int array)."""
        return (self.predict_proba(x) > 0.5).astype(np.int64)
