"""Configuration of EAGLE-2 decoding."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EagleConfig:
    """depth: number of drafted layers below the root (one draft forward pass per layer after the first);
    top_k: nodes expanded per layer, and children proposed per expanded node;
    total_tokens: drafted nodes kept by the reranking (the root comes in addition, so the target verifies
    total_tokens + 1 tokens per step);
    max_new_tokens: tokens to generate after the prompt;
    greedy: True for greedy decoding (argmax, the lowest token id on a tie), False for sampling from the models'
    distributions at temperature 1 (speculative sampling);
    seed: the seed of the UniformStream of a sampling generation;
    static_shape: None for EAGLE-2's dynamic tree; else the fixed tree of EAGLE (the baseline), as the paths of
    child ranks of its nodes (rank 0 = the most probable child), e.g. ((0,), (1,), (0, 0)); every node of a static
    tree is verified (depth, top_k and total_tokens are then not used)."""

    depth: int = 4
    top_k: int = 3
    total_tokens: int = 8
    max_new_tokens: int = 24
    greedy: bool = True
    seed: int = 0
    static_shape: tuple[tuple[int, ...], ...] | None = None

    def __post_init__(self) -> None:
        if self.depth < 1 or self.top_k < 1 or self.total_tokens < 1 or self.max_new_tokens < 1:
            raise ValueError(f"every field of EagleConfig must be >= 1, got {self}")
