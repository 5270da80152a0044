"""Configuration of the selection pipeline."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DSIRConfig:
    """Settings of one selection run.

    num_buckets: size m of the hashed feature space (`dsir.text.hash_ngram` maps every n-gram into [0, m)).
    ngram_orders: which n-gram orders are counted (1 = words, 2 = pairs of adjacent words, ...).
    smoothing: pseudocount added to every bucket's count before a count vector is normalised into a
        distribution over buckets (keeps every bucket's probability positive).
    resample: True for importance resampling; False keeps the k largest importance weights deterministically
        (the top-k ablation).
    seed: seed of the generator `select.py` hands to the selection (`dsir.rng.make_rng`).
    """

    num_buckets: int = 10_000
    ngram_orders: tuple[int, ...] = (1, 2)
    smoothing: float = 1.0
    resample: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if self.num_buckets <= 0:
            raise ValueError("num_buckets must be positive")
        if not self.ngram_orders or any(n < 1 for n in self.ngram_orders):
            raise ValueError("ngram_orders must be non-empty and >= 1")
        if self.smoothing < 0:
            raise ValueError("smoothing must be >= 0")
