"""Bradley-Terry ratings from pairwise votes, bootstrap intervals, ranks with confidence, predicted win rates."""
from __future__ import annotations

import math

import numpy as np

from .config import BootstrapConfig, RatingConfig
from .results import Leaderboard, Row
from .rng import bootstrap_indices, make_rng
from .stats import percentile_interval, sigmoid
from .votes import VoteLog


def bt_design(log: VoteLog, cfg: RatingConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The regression problem of a vote log.

    Returns (X, y, w): X float64 (n', M) design matrix, y float64 (n',) targets in [0, 1], w float64 (n',)
    per-vote weights, n' the number of votes kept under cfg.ties. Raises ValueError for an unknown cfg.ties.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def fit_bradley_terry(log: VoteLog, cfg: RatingConfig) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry strengths of the models of `log`.

    Returns float64 (M,) strengths xi on the natural-log-odds scale, in the log's model order.
    Raises ValueError if cfg.l2 is not positive or cfg.ties is unknown.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def to_elo(xi: np.ndarray, models: tuple[str, ...], cfg: RatingConfig) -> np.ndarray:
    """Strengths xi (..., M) on the rating scale of cfg, shifted per row. Returns float64 (..., M).
    Raises ValueError if cfg.anchor_model is set and not in models."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def bootstrap_ratings(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> np.ndarray:
    """Ratings of bootstrap replicates of the log. The draws are
    `bootstrap_indices(make_rng(boot.seed), len(log), boot.rounds)`. Returns float64 (boot.rounds, M), row r the
    ratings of round r."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def rank_with_ci(ci_low: np.ndarray, ci_high: np.ndarray) -> np.ndarray:
    """Ranks of models from their confidence intervals (float (M,) each). Returns int64 (M,), 1 = best."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def win_rate_matrix(ratings: np.ndarray, cfg: RatingConfig) -> np.ndarray:
    """Predicted probability that model i beats model j, from ratings (M,) on the scale of cfg.
    Returns float64 (M, M)."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def build_leaderboard(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> Leaderboard:
    """The leaderboard of a vote log (see arena.results)."""
    # TODO: implement (see the method description).
    raise NotImplementedError
