"""Numerical helpers shared by the fits."""
from __future__ import annotations

import numpy as np


def logistic(z: np.ndarray) -> np.ndarray:
    """The logistic function 1 / (1 + exp(-z)), elementwise, without overflow."""
    z = np.asarray(z, dtype=np.float64)
    out = np.empty_like(z)
    pos = z >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-z[pos]))
    ez = np.exp(z[~pos])
    out[~pos] = ez / (1.0 + ez)
    return out


def cross_entropy(targets: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """-t log q - (1 - t) log(1 - q) with q = logistic(logits), elementwise, for soft targets t in [0, 1]."""
    logits = np.asarray(logits, dtype=np.float64)
    return np.logaddexp(0.0, logits) - np.asarray(targets, dtype=np.float64) * logits
