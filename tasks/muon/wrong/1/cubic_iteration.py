# wrong: the classic cubic Newton-Schulz step 1.5 X - 0.5 X X^T X instead of the quintic of Eq. (2)
def orthogonalize(G, steps=5, eps=1e-7):
    if G.ndim < 2:
        raise ValueError("orthogonalize needs a matrix")
    if steps < 0:
        raise ValueError("steps must be >= 0")
    a, b, c = 3.4445, -4.7750, 2.0315
    transposed = G.shape[-2] > G.shape[-1]
    X = G.mT if transposed else G
    X = X / (torch.linalg.matrix_norm(X, keepdim=True) + eps)
    for _ in range(steps):
        A = X @ X.mT
        X = 1.5 * X - 0.5 * A @ X
    return X.mT if transposed else X
