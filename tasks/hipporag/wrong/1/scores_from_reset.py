# wrong: passages scored from the query nodes' reset weights, not the PageRank output
def retrieve(query_entities: list[str], graph: KnowledgeGraph, encoder: PhraseEncoder,
             config: HippoConfig) -> Retrieval:
    """Online retrieval for one query from its named entities (Section 3.2 of paper.md)."""
    ids, _ = link_query_entities(query_entities, graph, encoder)
    if config.node_specificity:
        weights = node_specificity(graph.passage_node)
    else:
        weights = np.ones(graph.num_nodes, dtype=np.float64)
    reset = np.zeros(graph.num_nodes, dtype=np.float64)
    reset[ids] = weights[ids]
    probs = personalized_pagerank(graph.adjacency(), reset, config.damping, config.ppr_tol, config.ppr_max_iter)
    passages, scores = rank_passages(graph.passage_node, reset, config.top_k)
    return Retrieval(passages=passages, scores=scores, node_probs=probs, query_nodes=ids)
