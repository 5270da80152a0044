"""Dependency parses as plain data."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DependencyParse:
    """A parsed sentence. `heads[i]` is the 0-based index of token i's syntactic head; the root is the token
    whose head is itself (spaCy's convention). `deps` are dependency labels, `pos` universal POS tags."""

    tokens: list[str]
    heads: list[int]
    deps: list[str]
    pos: list[str]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def children(self, i: int) -> list[int]:
        return [j for j, h in enumerate(self.heads) if h == i and j != i]


@dataclass(frozen=True)
class AspectExample:
    parse: DependencyParse
    aspect: str
    polarity: str  # "positive" | "negative" | "neutral"


def _p(rows: list[tuple[str, int, str, str]]) -> DependencyParse:
    """Build a parse from (token, head, dep, pos) rows, heads given 0-based."""
    return DependencyParse([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] for r in rows])


EXAMPLES = [
    AspectExample(_p([("The", 1, "det", "DET"), ("food", 2, "nsubj", "NOUN"), ("was", 2, "ROOT", "AUX"),
                      ("great", 2, "acomp", "ADJ"), (".", 2, "punct", "PUNCT")]), "food", "positive"),
    AspectExample(_p([("The", 1, "det", "DET"), ("service", 3, "nsubj", "NOUN"), ("was", 3, "aux", "AUX"),
                      ("slow", 3, "ROOT", "ADJ"), ("but", 3, "cc", "CCONJ"), ("the", 6, "det", "DET"),
                      ("pasta", 7, "nsubj", "NOUN"), ("delicious", 3, "conj", "ADJ"), (".", 3, "punct", "PUNCT")]),
                  "service", "negative"),
    AspectExample(_p([("The", 1, "det", "DET"), ("service", 3, "nsubj", "NOUN"), ("was", 3, "aux", "AUX"),
                      ("slow", 3, "ROOT", "ADJ"), ("but", 3, "cc", "CCONJ"), ("the", 6, "det", "DET"),
                      ("pasta", 7, "nsubj", "NOUN"), ("delicious", 3, "conj", "ADJ"), (".", 3, "punct", "PUNCT")]),
                  "pasta", "positive"),
    AspectExample(_p([("I", 1, "nsubj", "PRON"), ("ordered", 1, "ROOT", "VERB"), ("the", 3, "det", "DET"),
                      ("soup", 1, "dobj", "NOUN"), (".", 1, "punct", "PUNCT")]), "soup", "neutral"),
    AspectExample(_p([("Terrible", 1, "amod", "ADJ"), ("battery", 2, "nsubj", "NOUN"), ("life", 2, "ROOT", "NOUN"),
                      ("!", 2, "punct", "PUNCT")]), "battery", "negative"),
    AspectExample(_p([("A", 2, "det", "DET"), ("friendly", 2, "amod", "ADJ"), ("staff", 3, "nsubj", "NOUN"),
                      ("helped", 3, "ROOT", "VERB"), ("us", 3, "dobj", "PRON"), (".", 3, "punct", "PUNCT")]),
                  "staff", "positive"),
]
