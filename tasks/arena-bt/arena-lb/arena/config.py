"""Configuration of the rating fit and of the bootstrap."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RatingConfig:
    """How votes become ratings.

    scale, base: the rating scale; a rating gap of `scale` points means odds of `base` to 1.
    init_rating: the mean rating over all models of the log when no anchor is set.
    anchor_model: if set, the name of a model whose rating is fixed to `anchor_rating` instead.
    ties: "half" (a tie counts as half a win for each side) or "drop" (ties are removed before fitting).
    l2: coefficient of the penalty (l2 / 2) * sum_m xi_m^2 added to the negative log-likelihood, which is summed
        (not averaged) over votes; it makes the fit unique. Must be positive.
    reweight: weight each vote's log-likelihood term by 1 / prob, prob being the probability with which its pair
        was sampled (unnormalised weights).
    max_iter, tol: iteration limit and convergence tolerance of the optimiser.
    """

    scale: float = 400.0
    base: float = 10.0
    init_rating: float = 1000.0
    anchor_model: str | None = None
    anchor_rating: float = 1000.0
    ties: str = "half"
    l2: float = 1e-4
    reweight: bool = False
    max_iter: int = 100
    tol: float = 1e-12


@dataclass(frozen=True)
class BootstrapConfig:
    """rounds: number of bootstrap rounds; confidence: coverage of the intervals; seed: seed of the draws."""

    rounds: int = 100
    confidence: float = 0.95
    seed: int = 0
