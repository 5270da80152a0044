# wrong: every neighbour gets the same weight 1/k, ignoring the distances
def knn_distribution(distances: torch.Tensor, values: torch.Tensor, vocab_size: int,
                     temperature: float = 1.0) -> torch.Tensor:
    weights = torch.full_like(distances.to(torch.float64), 1.0 / distances.shape[1])
    p = torch.zeros(distances.shape[0], vocab_size, dtype=torch.float64)
    return p.scatter_add_(1, values, weights)
