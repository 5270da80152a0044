# wrong: the coefficients of x^3 and x^5 swapped
def orthogonalize(G, steps=5, eps=1e-7):
    if G.ndim < 2:
        raise ValueError("orthogonalize needs a matrix")
    if steps < 0:
        raise ValueError("steps must be >= 0")
    a, c, b = 3.4445, -4.7750, 2.0315
    transposed = G.shape[-2] > G.shape[-1]
    X = G.mT if transposed else G
    X = X / (torch.linalg.matrix_norm(X, keepdim=True) + eps)
    for _ in range(steps):
        A = X @ X.mT
        X = a * X + (b * A + c * (A @ A)) @ X
    return X.mT if transposed else X
