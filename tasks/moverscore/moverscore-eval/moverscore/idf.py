"""Inverse document frequency with plus-one smoothing."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence


def idf_table(documents: Sequence[Iterable[int]]) -> dict[int, float]:
    """``{token: log((M + 1) / (df + 1))}`` over M documents; unseen tokens: use ``default_idf(M)``."""
    df = Counter(tok for doc in documents for tok in set(doc))
    m = len(documents)
    return {tok: math.log((m + 1) / (count + 1)) for tok, count in df.items()}


def default_idf(num_documents: int) -> float:
    return math.log(num_documents + 1)
