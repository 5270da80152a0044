# Wrong: the first k points as initial centroids (seed ignored)
def kmeans(points: torch.Tensor, k: int, iters: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Lloyd's k-means.

    The initial centroids are `points[torch.randperm(N, generator=torch.Generator().manual_seed(seed))[:k]]`.
    Each of the `iters` iterations assigns every point to its nearest centroid (squared Euclidean distance, ties
    to the lower cluster index) and then moves every centroid to the mean of its points; a centroid without
    points stays where it is.

    Args:
        points: float (N, D).
        k: number of clusters, 1 <= k <= N.
        iters: number of iterations, >= 0.
        seed: seeds the choice of the initial centroids.

    Returns:
        centroids: (k, D), dtype of `points`, after the last iteration;
        assignment: int64 (N,), each point's nearest centroid among the returned ones (same tie rule).

    Raises:
        ValueError: unless 1 <= k <= N.
    """
    n = points.shape[0]
    if not 1 <= k <= n:
        raise ValueError(f"k must lie in [1, {n}], got {k}")
    generator = torch.Generator().manual_seed(seed)
    centroids = points[:k].clone()
    for _ in range(iters):
        assignment = torch.cdist(points, centroids).argmin(dim=1)
        for c in range(k):
            members = points[assignment == c]
            if len(members):
                centroids[c] = members.mean(dim=0)
    return centroids, torch.cdist(points, centroids).argmin(dim=1)
