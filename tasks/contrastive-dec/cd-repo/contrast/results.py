"""What contrastive decoding returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Hypothesis:
    """A continuation under search: its token ids and its total contrastive score (the sum of the scores of its
    tokens)."""

    tokens: list[int]
    score: float


@dataclass
class SearchResult:
    """The best continuation, and the beam after each step (step s holds the hypotheses of length s + 1, best
    first)."""

    best: Hypothesis
    beams: list[list[Hypothesis]] = field(default_factory=list)
