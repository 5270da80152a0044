# creates the children of the expanded nodes in descending value order rather than ascending node index
def expand_tree(root_probs: torch.Tensor, propose: Propose, depth: int, top_k: int) -> DraftTree:
    """Expansion phase: grow the draft tree below a root, layer by layer, up to `depth` layers.

    root_probs: (vocab,) float64, the draft's distribution of the token after the root.
    propose: called as propose(tree, nodes) with the tree drafted so far and a (r,) int64 tensor of node indices
    in ascending order; returns (r, vocab) float64, the draft's distribution of the token after each of those
    nodes. Called once per layer after the first, never more.
    Selections among equal probabilities or values go to the lower token id / lower node index.

    Returns the DraftTree (see `eagle2.state.DraftTree` for the node numbering), with `expanded` the nodes
    passed to `propose`, in order. Raises ValueError if top_k exceeds the vocabulary or depth < 1."""
    vocab = root_probs.shape[0]
    if top_k > vocab or depth < 1 or top_k < 1:
        raise ValueError(f"need 1 <= top_k <= vocab ({vocab}) and depth >= 1, got top_k={top_k}, depth={depth}")
    first = torch.sort(-root_probs, stable=True).indices[:top_k]
    tokens = [int(t) for t in first]
    parents = [-1] * top_k
    depths = [1] * top_k
    values = [float(root_probs[t]) for t in first]
    expanded: list[int] = []
    layer = list(range(top_k))

    def snapshot() -> DraftTree:
        return DraftTree(torch.tensor(tokens, dtype=torch.int64), torch.tensor(parents, dtype=torch.int64),
                         torch.tensor(depths, dtype=torch.int64), torch.tensor(values, dtype=torch.float64),
                         list(expanded))

    for d in range(2, depth + 1):
        layer_values = torch.tensor([values[i] for i in layer], dtype=torch.float64)
        best = torch.sort(-layer_values, stable=True).indices[:top_k]
        chosen = [layer[int(i)] for i in best]
        nodes = torch.tensor(chosen, dtype=torch.int64)
        probs = propose(snapshot(), nodes)
        expanded.extend(chosen)
        layer = []
        for row, parent in enumerate(chosen):
            kids = torch.sort(-probs[row], stable=True).indices[:top_k]
            for t in kids:
                layer.append(len(tokens))
                tokens.append(int(t))
                parents.append(parent)
                depths.append(d)
                values.append(values[parent] * float(probs[row, t]))
    return snapshot()
