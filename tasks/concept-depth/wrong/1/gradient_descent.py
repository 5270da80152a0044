# WRONG: plain gradient descent with a fixed step instead of Newton's method: max_iter steps are far from the optimum
def fit_logistic_regression(X, y, l2=1e-2, max_iter=50, tol=1e-10):
    X = X.detach().to(torch.float64)
    y = y.detach().to(torch.float64)
    if l2 <= 0:
        raise ValueError("l2 must be positive")
    if not (y.min() == 0 and y.max() == 1):
        raise ValueError("y must contain both classes")
    n, d = X.shape
    w = torch.zeros(d, dtype=torch.float64)
    b = torch.zeros((), dtype=torch.float64)
    for _ in range(max_iter * 20):
        p = torch.sigmoid(X @ w + b)
        gw = X.T @ (p - y) / n + l2 * w
        gb = (p - y).mean()
        if max(gw.abs().max(), gb.abs()) < tol:
            break
        w, b = w - 1.0 * gw, b - 1.0 * gb
    return w, float(b)


# (unchanged reference)
