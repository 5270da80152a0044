"""Small statistical helpers shared by the report, the renderer and the simulator."""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from evalbars.results import Interval

_NORMAL = NormalDist()


def normal_quantile(p: float) -> float:
    """The p-quantile of the standard normal distribution, 0 < p < 1."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    return _NORMAL.inv_cdf(p)


def critical_value(confidence: float) -> float:
    """The two-sided normal critical value of a confidence level: 1.959963984540054 for 0.95."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    return normal_quantile(0.5 + confidence / 2.0)


def two_sided_p(z: float) -> float:
    """Two-sided p-value of a standard-normal statistic z."""
    if math.isnan(z):
        return math.nan
    return 2.0 * _NORMAL.cdf(-abs(z))


def interval(center: float, se: float, confidence: float) -> Interval:
    """The normal confidence interval center +- critical_value(confidence) * se."""
    half = critical_value(confidence) * se
    return Interval(low=center - half, high=center + half)


def sample_variance(values: np.ndarray) -> float:
    """Unbiased sample variance (divisor n - 1) of a 1-D array of at least two values."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size < 2:
        raise ValueError("the sample variance needs a 1-D array of at least two values")
    return float(((values - values.mean()) ** 2).sum() / (values.size - 1))


def per_question_variance(scores: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Unbiased variance of each row's masked entries: (n, k) scores and bool mask -> (n,) float64.

    A row with fewer than two entries gets NaN.
    """
    counts = mask.sum(axis=1)
    safe = np.maximum(counts, 1)
    means = np.where(mask, scores, 0.0).sum(axis=1) / safe
    squares = np.where(mask, (scores - means[:, None]) ** 2, 0.0).sum(axis=1)
    out = np.full(scores.shape[0], np.nan)
    enough = counts >= 2
    out[enough] = squares[enough] / (counts[enough] - 1)
    return out
