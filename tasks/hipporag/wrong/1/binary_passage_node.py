# wrong: passage-node matrix records presence (0/1) instead of counts
def build_graph(passage_triples: list[list[tuple[str, str, str]]], encoder: PhraseEncoder,
                config: HippoConfig) -> KnowledgeGraph:
    """Offline indexing: the knowledge graph of a corpus.

    passage_triples: for each passage, its (subject, relation, object) triples as the OpenIE step returned them
        (raw phrases).
    encoder: the retrieval encoder used for synonymy detection.
    config: `synonym_threshold` and `synonym_weight` are used.
    Returns a `KnowledgeGraph` whose nodes are the distinct normalised (`normalize_phrase`) subjects and objects,
    numbered in order of first appearance (passage by passage, triple by triple, subject before object), with
    its relation and synonymy edges, and `passage_node` of shape (num_passages, num_nodes), int64.
    """
    graph = KnowledgeGraph()
    normalised = []
    for triples in passage_triples:
        rows = []
        for subj, _rel, obj in triples:
            i = graph.add_node(normalize_phrase(subj))
            j = graph.add_node(normalize_phrase(obj))
            rows.append((i, j))
        normalised.append(rows)
    n = graph.num_nodes
    counts = np.zeros((len(passage_triples), n), dtype=np.int64)
    for p, rows in enumerate(normalised):
        for i, j in rows:
            graph.add_edge(i, j, 1.0)
            counts[p, i] = 1
            counts[p, j] = 1
    graph.passage_node = counts
    if n > 1:
        sims = encoder.similarity(graph.nodes, graph.nodes)
        a, b = np.nonzero(np.triu(sims > config.synonym_threshold, k=1))
        for i, j in zip(a.tolist(), b.tolist()):
            weight = float(sims[i, j]) if config.synonym_weight == "similarity" else 1.0
            graph.add_edge(i, j, weight)
    return graph
