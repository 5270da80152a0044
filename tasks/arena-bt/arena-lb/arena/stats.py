"""Small numerical helpers."""
from __future__ import annotations

import numpy as np


def sigmoid(z: np.ndarray) -> np.ndarray:
    """Logistic function, stable for large |z|."""
    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    e = np.exp(z[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def percentile_interval(samples: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal-tailed interval over axis 0 of samples (rounds, ...): the (1 - confidence) / 2 and
    (1 + confidence) / 2 quantiles (linear interpolation)."""
    lo = np.quantile(samples, (1.0 - confidence) / 2.0, axis=0)
    hi = np.quantile(samples, (1.0 + confidence) / 2.0, axis=0)
    return lo, hi
