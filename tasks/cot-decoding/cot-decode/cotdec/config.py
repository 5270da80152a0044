"""Options of CoT-decoding."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DecodeConfig:
    """Attributes:
        num_branches: k, the number of alternative first tokens explored.
        max_new_tokens: the longest a path may get, its first token included.
        aggregate: choose the answer by the aggregated confidence over paths instead of the single best path.
    """

    num_branches: int = 10
    max_new_tokens: int = 16
    aggregate: bool = False

    def __post_init__(self) -> None:
        if self.num_branches < 1 or self.max_new_tokens < 1:
            raise ValueError("num_branches and max_new_tokens must be at least 1")
