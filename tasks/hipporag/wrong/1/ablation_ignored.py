# wrong: retrieve always weights the reset by node specificity, ignoring config.node_specificity
def retrieve(query_entities: list[str], graph: KnowledgeGraph, encoder: PhraseEncoder,
             config: HippoConfig) -> Retrieval:
    """Online retrieval for one query from its named entities (Section 3.2 of paper.md)."""
    ids, _ = link_query_entities(query_entities, graph, encoder)
    if True:
        weights = node_specificity(graph.passage_node)
    else:
        weights = np.ones(graph.num_nodes, dtype=np.float64)
    reset = np.zeros(graph.num_nodes, dtype=np.float64)
    reset[ids] = weights[ids]
    probs = personalized_pagerank(graph.adjacency(), reset, config.damping, config.ppr_tol, config.ppr_max_iter)
    passages, scores = rank_passages(graph.passage_node, probs, config.top_k)
    return Retrieval(passages=passages, scores=scores, node_probs=probs, query_nodes=ids)
