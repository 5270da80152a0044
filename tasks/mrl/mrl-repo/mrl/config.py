"""Options of Matryoshka representation learning."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MRLConfig:
    """Attributes:
        dims: the nested granularities m_1 < m_2 < ... < m_k (prefix sizes of the representation); the last is
            the full size.
        importance: the relative importance c_m of each granularity's loss (None: 1 for every granularity).
        efficient: MRL-E, the variant whose classifiers share one weight matrix.
    """

    dims: tuple[int, ...] = (4, 8, 16, 32)
    importance: tuple[float, ...] | None = None
    efficient: bool = False

    def __post_init__(self) -> None:
        if not self.dims or any(a >= b for a, b in zip(self.dims, self.dims[1:])) or self.dims[0] < 1:
            raise ValueError(f"dims must be positive and strictly increasing, got {self.dims}")
        if self.importance is not None and len(self.importance) != len(self.dims):
            raise ValueError("one importance weight per granularity")

    def weights(self) -> tuple[float, ...]:
        """c_m for every granularity."""
        return self.importance if self.importance is not None else tuple(1.0 for _ in self.dims)
