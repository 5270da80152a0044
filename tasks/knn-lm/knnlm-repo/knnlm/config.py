"""Options of the kNN-LM."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KnnConfig:
    """Attributes:
        k: the number of neighbours retrieved per query (all entries when the datastore is smaller).
        lam: the interpolation weight lambda of the kNN distribution.
        temperature: the distances are divided by it before the softmax over neighbours.
    """

    k: int = 8
    lam: float = 0.25
    temperature: float = 1.0

    def __post_init__(self) -> None:
        if self.k < 1 or not 0.0 <= self.lam <= 1.0 or self.temperature <= 0:
            raise ValueError("k >= 1, 0 <= lam <= 1 and temperature > 0 are required")
