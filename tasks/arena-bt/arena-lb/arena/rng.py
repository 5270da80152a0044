"""Random draws used by the leaderboard (one generator per seed, so runs are reproducible)."""
from __future__ import annotations

import numpy as np


def make_rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def bootstrap_indices(rng: np.random.Generator, n: int, rounds: int) -> np.ndarray:
    """int64 (rounds, n): row r holds the positions of the votes drawn with replacement for round r."""
    return rng.integers(0, n, size=(rounds, n), dtype=np.int64)
