"""What the leaderboard returns."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Row:
    """One model: its rating fitted on all votes, the bootstrap interval of the rating, its rank with
    confidence, and the number of battles it took part in (ties included)."""

    model: str
    rating: float
    ci_low: float
    ci_high: float
    rank: int
    n_votes: int


@dataclass(frozen=True)
class Leaderboard:
    """rows: one per model of the log, in descending order of rating (ties of rating in the log's model order).
    win_rate: float64 (M, M) predicted probability that the model of row i beats the model of column j, models
    in the log's order."""

    rows: tuple[Row, ...]
    win_rate: np.ndarray
