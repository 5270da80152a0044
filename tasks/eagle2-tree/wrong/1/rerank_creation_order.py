# no reranking: keeps the first m drafted nodes in creation order
def rerank(tree: DraftTree, total_tokens: int) -> torch.Tensor:
    """Reranking phase: the node indices kept for verification, (min(total_tokens, len(tree)),) int64 in
    ascending order. Among equal values the lower node index ranks first."""
    order = torch.arange(len(tree))[:total_tokens]
    return torch.sort(order).values
