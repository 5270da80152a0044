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
    # TODO: implement (see the method description).
    raise NotImplementedError


def node_specificity(passage_node: np.ndarray) -> np.ndarray:
    """Node specificity of every node.

    passage_node: (num_passages, num_nodes) non-negative counts.
    Returns (num_nodes,) float64. Raises ValueError if `passage_node` is not 2-D or some node occurs in no passage.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def link_query_entities(entities: list[str], graph: KnowledgeGraph,
                        encoder: PhraseEncoder) -> tuple[np.ndarray, np.ndarray]:
    """Link each query named entity to a node of the graph.

    Returns (node_ids, similarities): (len(entities),) int64 and (len(entities),) float64, the linked node of
    each entity and its cosine similarity with the entity. Raises ValueError if the graph has no nodes.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def personalized_pagerank(adjacency: sp.spmatrix, reset: np.ndarray, damping: float, tol: float,
                          max_iter: int) -> np.ndarray:
    """Personalized PageRank on an undirected weighted graph by power iteration.

    adjacency: (n, n) symmetric non-negative edge weights (scipy sparse or dense), every node with an edge.
    reset: (n,) non-negative reset weights, not all zero (need not sum to 1).
    damping: the damping factor; tol, max_iter: the stopping rule of the iteration.
    Returns (n,) float64, the stationary distribution. Raises ValueError if `reset` has no positive mass.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def rank_passages(passage_node: np.ndarray, node_probs: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
    """Score every passage from the node distribution and keep the best `top_k`.

    passage_node: (num_passages, num_nodes); node_probs: (num_nodes,).
    Returns (passages, scores): (min(top_k, num_passages),) int64 indices, best first, and their float64 scores.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def retrieve(query_entities: list[str], graph: KnowledgeGraph, encoder: PhraseEncoder,
             config: HippoConfig) -> Retrieval:
    """Online retrieval for one query from its named entities (Section 3.2 of paper.md)."""
    # TODO: implement (see the method description).
    raise NotImplementedError
