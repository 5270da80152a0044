# wrong: the distances are multiplied by the temperature instead of divided
def knn_distribution(distances: torch.Tensor, values: torch.Tensor, vocab_size: int,
                     temperature: float = 1.0) -> torch.Tensor:
    weights = torch.softmax(-distances.to(torch.float64) * temperature, dim=1)
    p = torch.zeros(distances.shape[0], vocab_size, dtype=torch.float64)
    return p.scatter_add_(1, values, weights)
