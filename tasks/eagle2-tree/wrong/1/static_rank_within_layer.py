# static tree: the rank picks among all tokens of the draft distribution at the root for every depth
def static_tree(root_probs: torch.Tensor, propose: Propose, shape: tuple[tuple[int, ...], ...]) -> DraftTree:
    """EAGLE's static tree: the node of path (r_1, ..., r_d) holds the r_d-th most probable child (rank 0 first,
    the lower token id first on a tie) of the node of path (r_1, ..., r_{d-1}), or of the root when d = 1.

    root_probs and propose as in `expand_tree`; propose is called once per depth that has deeper paths, with the
    nodes of that depth that have children in `shape`. Nodes are numbered in the order of `shape`, which must list
    all paths of one length before any longer path and every path after its parent path; raises ValueError
    otherwise, or if a rank is out of the vocabulary."""
    vocab = root_probs.shape[0]
    index: dict[tuple[int, ...], int] = {}
    for i, path in enumerate(shape):
        if not path or (i and len(path) < len(shape[i - 1])) or (len(path) > 1 and path[:-1] not in index):
            raise ValueError(f"bad static tree shape at {path}")
        if not 0 <= path[-1] < vocab:
            raise ValueError(f"rank {path[-1]} out of the vocabulary ({vocab})")
        index[tuple(path)] = i
    n = len(shape)
    tokens = torch.zeros(n, dtype=torch.int64)
    parents = torch.tensor([index[tuple(p[:-1])] if len(p) > 1 else -1 for p in shape], dtype=torch.int64)
    depths = torch.tensor([len(p) for p in shape], dtype=torch.int64)
    values = torch.zeros(n, dtype=torch.float64)
    expanded: list[int] = []
    dist = {-1: root_probs}
    for d in range(1, int(depths.max()) + 1 if n else 1):
        if d > 1:
            nodes = sorted({int(parents[i]) for i in range(n) if depths[i] == d})
            m = int((depths < d).sum())
            tree = DraftTree(tokens[:m].clone(), parents[:m].clone(), depths[:m].clone(), values[:m].clone(),
                             list(expanded))
            probs = propose(tree, torch.tensor(nodes, dtype=torch.int64))
            expanded.extend(nodes)
            dist.update({c: row for c, row in zip(nodes, probs)})
        for i in range(n):
            if depths[i] != d:
                continue
            par = int(parents[i])
            ranked = torch.sort(-dist[-1], stable=True).indices
            tokens[i] = ranked[shape[i][-1]]
            values[i] = (1.0 if par == -1 else values[par]) * dist[par][tokens[i]]
    return DraftTree(tokens, parents, depths, values, expanded)
