# wrong: |P_i| taken as the total count of node i over passages, not the number of passages containing it
def node_specificity(passage_node: np.ndarray) -> np.ndarray:
    """Node specificity of every node.

    passage_node: (num_passages, num_nodes) non-negative counts.
    Returns (num_nodes,) float64. Raises ValueError if `passage_node` is not 2-D or some node occurs in no passage.
    """
    counts = np.asarray(passage_node)
    if counts.ndim != 2:
        raise ValueError("passage_node must be 2-D")
    n_passages = counts.sum(axis=0)
    if np.any(n_passages == 0):
        raise ValueError("every node must occur in at least one passage")
    return 1.0 / n_passages.astype(np.float64)
