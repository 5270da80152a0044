# wrong: neighbours with the same token overwrite each other instead of adding up
def knn_distribution(distances: torch.Tensor, values: torch.Tensor, vocab_size: int,
                     temperature: float = 1.0) -> torch.Tensor:
    weights = torch.softmax(-distances.to(torch.float64) / temperature, dim=1)
    p = torch.zeros(distances.shape[0], vocab_size, dtype=torch.float64)
    return p.scatter_(1, values, weights)
