"""Feature preprocessing before quantisation: unit length, then a PCA projection."""

from __future__ import annotations

import numpy as np

from mauve.config import MauveConfig


def l2_normalize(x: np.ndarray, eps: float = 1e-12) -> np.ndarray:
    """Rows of x scaled to unit Euclidean length (a zero row stays zero)."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.maximum(norms, eps)


def pca_project(x: np.ndarray, variance: float) -> np.ndarray:
    """Centre the rows of x and project them on the fewest principal directions that keep at least `variance` of
    the total variance. Each direction's sign is fixed so that its largest-magnitude loading is positive."""
    x = np.asarray(x, dtype=np.float64)
    centred = x - x.mean(axis=0, keepdims=True)
    _, s, vt = np.linalg.svd(centred, full_matrices=False)
    power = s**2
    if power.sum() == 0:
        return centred[:, :1] * 0.0
    kept = int(np.searchsorted(np.cumsum(power) / power.sum(), variance - 1e-12) + 1)
    vt = vt[:kept]
    signs = np.sign(vt[np.arange(kept), np.argmax(np.abs(vt), axis=1)])
    return centred @ (vt * signs[:, None]).T


def prepare_features(x: np.ndarray, cfg: MauveConfig) -> np.ndarray:
    """The features the clustering sees: rows normalised to unit length, then projected by `pca_project` with
    `cfg.pca_variance`. x: (n, d) float array; returns (n, d') float64 with d' <= d."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"features must be a non-empty (n, d) array, got shape {x.shape}")
    return pca_project(l2_normalize(x), cfg.pca_variance)
