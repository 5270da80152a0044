"""Configuration of indexing and retrieval."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HippoConfig:
    """Settings of one HippoRAG index and its retrieval.

    synonym_threshold: cosine similarity between two node embeddings above which a synonymy edge joins them.
    synonym_weight: "similarity" (a synonymy edge carries the cosine similarity of its two nodes as its weight)
        or "unit" (weight 1.0, like a relation edge).
    damping: the damping factor of Personalized PageRank.
    ppr_tol: the power iteration stops once successive probability vectors differ by less than this.
    ppr_max_iter: upper bound on the number of power-iteration steps.
    node_specificity: True weights each query node's reset probability by its node specificity; False gives
        every query node the same weight (the ablation).
    top_k: number of passages a retrieval returns.
    embed_dim: dimension of the phrase encoder's output.
    """

    synonym_threshold: float = 0.8
    synonym_weight: str = "similarity"
    damping: float = 0.5
    ppr_tol: float = 1e-10
    ppr_max_iter: int = 1000
    node_specificity: bool = True
    top_k: int = 5
    embed_dim: int = 256

    def __post_init__(self) -> None:
        if not -1.0 <= self.synonym_threshold <= 1.0:
            raise ValueError("synonym_threshold must lie in [-1, 1]")
        if self.synonym_weight not in ("similarity", "unit"):
            raise ValueError("synonym_weight must be 'similarity' or 'unit'")
        if not 0.0 <= self.damping < 1.0:
            raise ValueError("damping must lie in [0, 1)")
        if self.ppr_tol <= 0 or self.ppr_max_iter < 1:
            raise ValueError("ppr_tol must be positive and ppr_max_iter >= 1")
        if self.top_k < 1 or self.embed_dim < 1:
            raise ValueError("top_k and embed_dim must be >= 1")
