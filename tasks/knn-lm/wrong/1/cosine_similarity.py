# wrong: neighbours are ranked by dot product (largest first) and the distances are negative dot products
def knn_search(store: Datastore, queries: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    d = -(queries.to(torch.float64) @ store.keys.T)
    order = torch.sort(d, dim=1, stable=True).indices[:, : min(k, len(store))]
    return torch.gather(d, 1, order), order
