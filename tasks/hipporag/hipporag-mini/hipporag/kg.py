"""The knowledge graph container: named nodes, undirected weighted edges, and the passage-node count matrix."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp


@dataclass
class KnowledgeGraph:
    """A schemaless KG. Nodes are normalised noun phrases, numbered in the order they were added.

    Edges are undirected: `add_edge(i, j, w)` adds w to the weight of {i, j} (repeated calls accumulate), and
    self-loops are ignored. `passage_node[p, i]` counts how often node i occurs in passage p's triples.
    """

    nodes: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    edges: dict[tuple[int, int], float] = field(default_factory=dict)
    passage_node: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    def add_node(self, phrase: str) -> int:
        """Index of the node named `phrase`, adding it at the end if it is new."""
        if phrase not in self.index:
            self.index[phrase] = len(self.nodes)
            self.nodes.append(phrase)
        return self.index[phrase]

    def add_edge(self, i: int, j: int, weight: float = 1.0) -> None:
        """Add `weight` to the undirected edge {i, j}; a self-loop (i == j) is ignored."""
        if i == j:
            return
        key = (min(i, j), max(i, j))
        self.edges[key] = self.edges.get(key, 0.0) + float(weight)

    def adjacency(self) -> sp.csr_matrix:
        """(num_nodes, num_nodes) symmetric float64 CSR matrix of edge weights (zero diagonal)."""
        n = self.num_nodes
        if not self.edges:
            return sp.csr_matrix((n, n), dtype=np.float64)
        keys = np.array(list(self.edges.keys()), dtype=np.int64).reshape(-1, 2)
        vals = np.array(list(self.edges.values()), dtype=np.float64)
        rows = np.concatenate([keys[:, 0], keys[:, 1]])
        cols = np.concatenate([keys[:, 1], keys[:, 0]])
        return sp.csr_matrix((np.concatenate([vals, vals]), (rows, cols)), shape=(n, n), dtype=np.float64)
