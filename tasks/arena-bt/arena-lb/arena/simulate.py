"""Synthetic battles between models of known strength."""
from __future__ import annotations

import numpy as np

from .stats import sigmoid
from .votes import VoteLog


def simulate(strengths: np.ndarray, n_votes: int, rng: np.random.Generator, *, tie_rate: float = 0.1,
             pair_probs: np.ndarray | None = None) -> VoteLog:
    """strengths: (M,) true xi. pair_probs: (M, M) upper-triangular probabilities of each pair (uniform if None).
    A battle is a tie with probability tie_rate, otherwise model_a wins with the Bradley-Terry probability."""
    strengths = np.asarray(strengths, dtype=np.float64)
    m = strengths.shape[0]
    iu = np.triu_indices(m, 1)
    p = np.full(iu[0].shape[0], 1.0 / iu[0].shape[0]) if pair_probs is None else pair_probs[iu] / pair_probs[iu].sum()
    k = rng.choice(p.shape[0], size=n_votes, p=p)
    a, b = iu[0][k], iu[1][k]
    swap = rng.random(n_votes) < 0.5
    a, b = np.where(swap, b, a), np.where(swap, a, b)
    win = rng.random(n_votes) < sigmoid(strengths[a] - strengths[b])
    y = np.where(rng.random(n_votes) < tie_rate, 0.5, win.astype(np.float64))
    return VoteLog(tuple(f"model-{i}" for i in range(m)), a.astype(np.int64), b.astype(np.int64), y, p[k])
