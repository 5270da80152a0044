"""k-means (Lloyd's iterations from k-means++ seeds), the quantiser of the samples' features."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mauve.config import MauveConfig


@dataclass(frozen=True)
class KMeansResult:
    """labels: (n,) int64 cluster of each row, in [0, k); centers: (k, d); inertia: summed squared distances."""

    labels: np.ndarray
    centers: np.ndarray
    inertia: float


def squared_distances(x: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """(n, k) squared Euclidean distances between the rows of x and the centers."""
    return ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)


def assign(x: np.ndarray, centers: np.ndarray) -> np.ndarray:
    """The nearest center of each row of x (the lowest index on a tie)."""
    return np.argmin(squared_distances(x, centers), axis=1).astype(np.int64)


def _plus_plus(x: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    centers = [x[int(rng.integers(len(x)))]]
    for _ in range(1, k):
        d = squared_distances(x, np.array(centers)).min(axis=1)
        total = d.sum()
        idx = int(rng.integers(len(x))) if total == 0 else int(rng.choice(len(x), p=d / total))
        centers.append(x[idx])
    return np.array(centers)


def _lloyd(x: np.ndarray, centers: np.ndarray, iters: int) -> KMeansResult:
    for _ in range(iters):
        labels = assign(x, centers)
        new = centers.copy()
        for j in range(len(centers)):
            members = x[labels == j]
            if len(members):
                new[j] = members.mean(axis=0)
        if np.array_equal(new, centers):
            break
        centers = new
    labels = assign(x, centers)
    inertia = float(((x - centers[labels]) ** 2).sum())
    return KMeansResult(labels, centers, inertia)


def kmeans(x: np.ndarray, k: int, cfg: MauveConfig) -> KMeansResult:
    """Cluster the rows of x into k clusters: `cfg.kmeans_restarts` runs of at most `cfg.kmeans_iters` Lloyd
    iterations from k-means++ seeds drawn with `numpy.random.default_rng(cfg.seed)`; the run of lowest inertia
    is returned (the first on a tie). Deterministic for the same x (same rows, same order) and cfg.

    Raises:
        ValueError: if k < 1 or k exceeds the number of rows.
    """
    x = np.asarray(x, dtype=np.float64)
    if not 1 <= k <= len(x):
        raise ValueError(f"cannot make {k} clusters of {len(x)} points")
    rng = np.random.default_rng(cfg.seed)
    best: KMeansResult | None = None
    for _ in range(cfg.kmeans_restarts):
        run = _lloyd(x, _plus_plus(x, k, rng), cfg.kmeans_iters)
        if best is None or run.inertia < best.inertia:
            best = run
    assert best is not None
    return best
