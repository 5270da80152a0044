# wrong: reset weights used as they are, not normalised into a distribution
def personalized_pagerank(adjacency: sp.spmatrix, reset: np.ndarray, damping: float, tol: float,
                          max_iter: int) -> np.ndarray:
    """Personalized PageRank on an undirected weighted graph by power iteration.

    adjacency: (n, n) symmetric non-negative edge weights (scipy sparse or dense), every node with an edge.
    reset: (n,) non-negative reset weights, not all zero (need not sum to 1).
    damping: the damping factor; tol, max_iter: the stopping rule of the iteration.
    Returns (n,) float64, the stationary distribution. Raises ValueError if `reset` has no positive mass.
    """
    r = np.asarray(reset, dtype=np.float64).reshape(-1)
    total = r.sum()
    if not total > 0:
        raise ValueError("reset must have positive mass")
    r = r
    a = sp.csr_matrix(adjacency, dtype=np.float64)
    degree = np.asarray(a.sum(axis=0), dtype=np.float64).reshape(-1)
    inv = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
    transition = a @ sp.diags(inv)
    p = r.copy()
    for _ in range(max_iter):
        nxt = (1.0 - damping) * r + damping * (transition @ p)
        done = np.abs(nxt - p).sum() < tol
        p = nxt
        if done:
            break
    return p
