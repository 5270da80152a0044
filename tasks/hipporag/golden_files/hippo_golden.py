"""HippoRAG's offline indexing (the knowledge graph) and online retrieval (Personalized PageRank)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from hipporag.config import HippoConfig
from hipporag.encoder import PhraseEncoder
from hipporag.kg import KnowledgeGraph
from hipporag.text import normalize_phrase


@dataclass
class Retrieval:
    """The result of one query: passage indices best first, their scores, and the PPR state behind them."""

    passages: np.ndarray      # (k,) int64
    scores: np.ndarray        # (k,) float64, the scores of `passages`
    node_probs: np.ndarray    # (num_nodes,) float64, the PPR distribution over nodes
    query_nodes: np.ndarray   # (num_entities,) int64, the node each query entity was linked to


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
            counts[p, i] += 1
            counts[p, j] += 1
    graph.passage_node = counts
    if n > 1:
        sims = encoder.similarity(graph.nodes, graph.nodes)
        a, b = np.nonzero(np.triu(sims > config.synonym_threshold, k=1))
        for i, j in zip(a.tolist(), b.tolist()):
            weight = float(sims[i, j]) if config.synonym_weight == "similarity" else 1.0
            graph.add_edge(i, j, weight)
    return graph


def node_specificity(passage_node: np.ndarray) -> np.ndarray:
    """Node specificity of every node.

    passage_node: (num_passages, num_nodes) non-negative counts.
    Returns (num_nodes,) float64. Raises ValueError if `passage_node` is not 2-D or some node occurs in no passage.
    """
    counts = np.asarray(passage_node)
    if counts.ndim != 2:
        raise ValueError("passage_node must be 2-D")
    n_passages = (counts > 0).sum(axis=0)
    if np.any(n_passages == 0):
        raise ValueError("every node must occur in at least one passage")
    return 1.0 / n_passages.astype(np.float64)


def link_query_entities(entities: list[str], graph: KnowledgeGraph,
                        encoder: PhraseEncoder) -> tuple[np.ndarray, np.ndarray]:
    """Link each query named entity to a node of the graph.

    Returns (node_ids, similarities): (len(entities),) int64 and (len(entities),) float64, the linked node of
    each entity and its cosine similarity with the entity. Raises ValueError if the graph has no nodes.
    """
    if graph.num_nodes == 0:
        raise ValueError("the graph has no nodes")
    if len(entities) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    sims = encoder.similarity(list(entities), graph.nodes)
    ids = np.argmax(sims, axis=1)
    return ids.astype(np.int64), sims[np.arange(len(entities)), ids].astype(np.float64)


def personalized_pagerank(adjacency: sp.spmatrix, reset: np.ndarray, damping: float, tol: float,
                          max_iter: int) -> np.ndarray:
    """Personalized PageRank on an undirected weighted graph by power iteration.

    adjacency: (n, n) symmetric non-negative edge weights (scipy sparse or dense), every node with an edge.
    reset: (n,) non-negative reset weights, not all zero (need not sum to 1).
    damping: the damping factor; tol, max_iter: the stopping rule of the iteration.
    Returns (n,) float64, the stationary distribution. Raises ValueError if `reset` has no positive mass.
    """
    r = np.asarray(reset, dtype=np.float64).reshape(-1)
    total = r.sum()
    if not total > 0:
        raise ValueError("reset must have positive mass")
    r = r / total
    a = sp.csr_matrix(adjacency, dtype=np.float64)
    degree = np.asarray(a.sum(axis=0), dtype=np.float64).reshape(-1)
    inv = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)
    transition = a @ sp.diags(inv)
    p = r.copy()
    for _ in range(max_iter):
        nxt = (1.0 - damping) * r + damping * (transition @ p)
        done = np.abs(nxt - p).sum() < tol
        p = nxt
        if done:
            break
    return p


def rank_passages(passage_node: np.ndarray, node_probs: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Score every passage from the node distribution and keep the best `top_k`.

    passage_node: (num_passages, num_nodes); node_probs: (num_nodes,).
    Returns (passages, scores): (min(top_k, num_passages),) int64 indices, best first, and their float64 scores.
    """
    scores = np.asarray(passage_node, dtype=np.float64) @ np.asarray(node_probs, dtype=np.float64)
    order = np.argsort(-scores, kind="stable")[:top_k]
    return order.astype(np.int64), scores[order]


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
    passages, scores = rank_passages(graph.passage_node, probs, config.top_k)
    return Retrieval(passages=passages, scores=scores, node_probs=probs, query_nodes=ids)
