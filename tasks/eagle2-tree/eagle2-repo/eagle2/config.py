"""Configuration of EAGLE-2 decoding."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EagleConfig:
    """depth: number of drafted layers below the root (one draft forward pass per layer after the first);
    top_k: nodes expanded per layer, and children proposed per expanded node;
    total_tokens: drafted nodes kept by the reranking (the root comes in addition, so the target verifies
    total_tokens + 1 tokens per step);
    max_new_tokens: tokens to generate after the prompt."""

    depth: int = 4
    top_k: int = 3
    total_tokens: int = 8
    max_new_tokens: int = 24

    def __post_init__(self) -> None:
        if self.depth < 1 or self.top_k < 1 or self.total_tokens < 1 or self.max_new_tokens < 1:
            raise ValueError(f"every field of EagleConfig must be >= 1, got {self}")
