# WRONG: minimises the summed (not mean) cross-entropy plus the penalty
def fit_logistic(features: np.ndarray, targets: np.ndarray, l2: np.ndarray, max_iter: int, tol: float) -> np.ndarray:
    """L2-penalised logistic regression on soft targets, by Newton's method from zero coefficients.

    Args:
        features: (n, k) float64 design matrix.
        targets: (n,) float64 probabilities in [0, 1].
        l2: (k,) float64 non-negative penalty strength of each coefficient.
        max_iter: Newton iterations allowed.
        tol: convergence threshold on the largest absolute entry of the objective's gradient.
    Returns:
        (k,) float64 coefficients w minimising
        mean_i cross_entropy(targets_i, features_i . w) + 0.5 * sum_j l2_j * w_j**2.
    Raises:
        RuntimeError: if the gradient is not below `tol` after `max_iter` iterations.
    """
    x = np.asarray(features, dtype=np.float64)
    t = np.asarray(targets, dtype=np.float64)
    lam = np.asarray(l2, dtype=np.float64)
    n = x.shape[0]
    w = np.zeros(x.shape[1])

    def objective(v: np.ndarray) -> float:
        return float(np.sum(cross_entropy(t, x @ v)) + 0.5 * np.sum(lam * v * v))

    for iteration in range(max_iter + 1):
        q = logistic(x @ w)
        grad = x.T @ (q - t) + lam * w
        if np.max(np.abs(grad)) <= tol:
            return w
        if iteration == max_iter:
            break
        hess = (x * (q * (1.0 - q))[:, None]).T @ x + np.diag(lam)
        step = np.linalg.solve(hess, grad)
        size, current = 1.0, objective(w)
        # halve the step only on a real increase (not one of rounding size near the optimum)
        while objective(w - size * step) > current + 1e-12 * max(1.0, abs(current)) and size > 1e-8:
            size *= 0.5
        w = w - size * step
    raise RuntimeError(f"Newton's method did not converge in {max_iter} iterations")
