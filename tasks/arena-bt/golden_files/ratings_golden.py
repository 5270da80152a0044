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
    if cfg.ties not in ("half", "drop"):
        raise ValueError(f"unknown tie handling {cfg.ties!r}")
    keep = np.ones(len(log), dtype=bool) if cfg.ties == "half" else ~log.is_tie()
    a, b, y, p = log.model_a[keep], log.model_b[keep], log.outcome[keep], log.prob[keep]
    n = a.shape[0]
    X = np.zeros((n, log.n_models), dtype=np.float64)
    X[np.arange(n), a] = 1.0
    X[np.arange(n), b] = -1.0
    w = 1.0 / p if cfg.reweight else np.ones(n, dtype=np.float64)
    return X, y.astype(np.float64), w.astype(np.float64)


def fit_bradley_terry(log: VoteLog, cfg: RatingConfig) -> np.ndarray:
    """Maximum-likelihood Bradley-Terry strengths of the models of `log`.

    Returns float64 (M,) strengths xi on the natural-log-odds scale, in the log's model order.
    Raises ValueError if cfg.l2 is not positive or cfg.ties is unknown.
    """
    if not cfg.l2 > 0:
        raise ValueError("l2 must be positive")
    X, y, w = bt_design(log, cfg)
    xi = np.zeros(log.n_models, dtype=np.float64)
    eye = np.eye(log.n_models)
    for _ in range(cfg.max_iter):
        p = sigmoid(X @ xi)
        grad = X.T @ (w * (p - y)) + cfg.l2 * xi
        hess = (X * (w * p * (1.0 - p))[:, None]).T @ X + cfg.l2 * eye
        step = np.linalg.solve(hess, grad)
        xi = xi - step
        if np.max(np.abs(step)) < cfg.tol:
            break
    return xi


def to_elo(xi: np.ndarray, models: tuple[str, ...], cfg: RatingConfig) -> np.ndarray:
    """Strengths xi (..., M) on the rating scale of cfg, shifted per row. Returns float64 (..., M).
    Raises ValueError if cfg.anchor_model is set and not in models."""
    r = np.asarray(xi, dtype=np.float64) * (cfg.scale / math.log(cfg.base))
    if cfg.anchor_model is None:
        return r - r.mean(axis=-1, keepdims=True) + cfg.init_rating
    if cfg.anchor_model not in models:
        raise ValueError(f"anchor model {cfg.anchor_model!r} not in the log")
    k = models.index(cfg.anchor_model)
    return r - r[..., k:k + 1] + cfg.anchor_rating


def bootstrap_ratings(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> np.ndarray:
    """Ratings of bootstrap replicates of the log. The draws are
    `bootstrap_indices(make_rng(boot.seed), len(log), boot.rounds)`. Returns float64 (boot.rounds, M), row r the
    ratings of round r."""
    idx = bootstrap_indices(make_rng(boot.seed), len(log), boot.rounds)
    out = np.empty((boot.rounds, log.n_models), dtype=np.float64)
    for r in range(boot.rounds):
        out[r] = to_elo(fit_bradley_terry(log.subset(idx[r]), cfg), log.models, cfg)
    return out


def rank_with_ci(ci_low: np.ndarray, ci_high: np.ndarray) -> np.ndarray:
    """Ranks of models from their confidence intervals (float (M,) each). Returns int64 (M,), 1 = best."""
    low = np.asarray(ci_low, dtype=np.float64)
    high = np.asarray(ci_high, dtype=np.float64)
    return 1 + (low[None, :] > high[:, None]).sum(axis=1).astype(np.int64)


def win_rate_matrix(ratings: np.ndarray, cfg: RatingConfig) -> np.ndarray:
    """Predicted probability that model i beats model j, from ratings (M,) on the scale of cfg.
    Returns float64 (M, M)."""
    r = np.asarray(ratings, dtype=np.float64)
    return 1.0 / (1.0 + cfg.base ** ((r[None, :] - r[:, None]) / cfg.scale))


def build_leaderboard(log: VoteLog, cfg: RatingConfig, boot: BootstrapConfig) -> Leaderboard:
    """The leaderboard of a vote log (see arena.results)."""
    ratings = to_elo(fit_bradley_terry(log, cfg), log.models, cfg)
    low, high = percentile_interval(bootstrap_ratings(log, cfg, boot), boot.confidence)
    ranks = rank_with_ci(low, high)
    counts = log.votes_per_model()
    order = sorted(range(log.n_models), key=lambda i: (-ratings[i], i))
    rows = tuple(Row(log.models[i], float(ratings[i]), float(low[i]), float(high[i]), int(ranks[i]),
                     int(counts[i])) for i in order)
    return Leaderboard(rows, win_rate_matrix(ratings, cfg))
