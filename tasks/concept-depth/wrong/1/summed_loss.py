# WRONG: sums the logistic loss over examples instead of averaging it (the penalty is effectively l2 / n)
def fit_logistic_regression(X, y, l2=1e-2, max_iter=50, tol=1e-10):
    X = X.detach().to(torch.float64)
    y = y.detach().to(torch.float64)
    if l2 <= 0:
        raise ValueError("l2 must be positive")
    if not (y.min() == 0 and y.max() == 1):
        raise ValueError("y must contain both classes")
    n, d = X.shape
    A = torch.cat([X, torch.ones(n, 1, dtype=torch.float64)], dim=1)
    penalty = torch.full((d + 1,), l2, dtype=torch.float64)
    penalty[-1] = 0.0
    theta = torch.zeros(d + 1, dtype=torch.float64)
    for _ in range(max_iter):
        p = torch.sigmoid(A @ theta)
        grad = A.T @ (p - y) + penalty * theta
        if grad.abs().max() < tol:
            break
        hess = (A.T * (p * (1 - p))) @ A + torch.diag(penalty)
        theta = theta - torch.linalg.solve(hess, grad)
    return theta[:-1], float(theta[-1])


# (unchanged reference)
