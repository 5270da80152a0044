# wrong: passages ranked from the lowest score
def rank_passages(passage_node: np.ndarray, node_probs: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Score every passage from the node distribution and keep the best `top_k`.

    passage_node: (num_passages, num_nodes); node_probs: (num_nodes,).
    Returns (passages, scores): (min(top_k, num_passages),) int64 indices, best first, and their float64 scores.
    """
    scores = np.asarray(passage_node, dtype=np.float64) @ np.asarray(node_probs, dtype=np.float64)
    order = np.argsort(scores, kind="stable")[:top_k]
    return order.astype(np.int64), scores[order]
