"""Random draws used by the selection, in one place so that runs are reproducible."""
from __future__ import annotations

import numpy as np


def make_rng(seed: int) -> np.random.Generator:
    """The generator every random step of a run draws from."""
    return np.random.default_rng(seed)


def gumbel_noise(rng: np.random.Generator, n: int) -> np.ndarray:
    """n independent standard Gumbel draws, float64 of shape (n,): -log(-log U) with U uniform on (0, 1)."""
    u = rng.random(n)
    u = np.clip(u, np.finfo(np.float64).tiny, None)
    return -np.log(-np.log(u))


def uniform_subset(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """k distinct indices of range(n), uniformly at random (the random-selection baseline)."""
    return np.sort(rng.choice(n, size=k, replace=False))
