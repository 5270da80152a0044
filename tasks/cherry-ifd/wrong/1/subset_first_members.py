# Wrong: the first per_cluster members of each cluster by index, not the nearest to the centroid
def experience_subset(embeddings: torch.Tensor, config: CherryConfig) -> list[int]:
    """The samples on which the pre-experienced model is trained, chosen from the k-means clusters of the
    instruction embeddings (`kmeans` with `config.num_clusters`, `config.kmeans_iters`, `config.kmeans_seed`;
    `config.per_cluster` samples from each cluster).

    Args:
        embeddings: float64 (N, dim), one row per sample.
        config: the run's settings.

    Returns:
        sample indices, ascending, without repeats.
    """
    centroids, assignment = kmeans(embeddings, config.num_clusters, config.kmeans_iters, config.kmeans_seed)
    chosen: list[int] = []
    for c in range(config.num_clusters):
        members = torch.nonzero(assignment == c)[:, 0]
        distances = ((embeddings[members] - centroids[c]) ** 2).sum(dim=1)
        order = torch.arange(len(distances))[:config.per_cluster]
        chosen.extend(members[order].tolist())
    return sorted(chosen)
