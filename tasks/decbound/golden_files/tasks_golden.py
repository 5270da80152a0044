"""The family of 2-D binary classification tasks and the grid used to probe decision boundaries."""
from __future__ import annotations

from typing import NamedTuple, Sequence

import numpy as np

TASK_KINDS = ("linear", "circles", "moons")


class ClassificationTask(NamedTuple):
    kind: str
    seed: int
    X: np.ndarray  # (n_samples, 2) float64
    y: np.ndarray  # (n_samples,) int64 in {0, 1}


class Grid(NamedTuple):
    points: np.ndarray  # (resolution * resolution, 2) float64
    xs: np.ndarray  # (resolution,) grid coordinates along the first axis
    ys: np.ndarray  # (resolution,) grid coordinates along the second axis


def generate_task(kind: str, n_samples: int = 128, seed: int = 0, noise: float = 0.1, factor: float = 0.5,
                  shuffle: bool = True) -> ClassificationTask:
    """Generate one 2-D binary classification task.

    Class 0 has n0 = n_samples // 2 points and class 1 has n1 = n_samples - n0. The noise-free points are
    laid out class 0 first, then class 1, with t_c = np.linspace(0, pi, n_c) for moons and
    a_c = np.linspace(0, 2 pi, n_c, endpoint=False) for circles:

    - "moons": class 0 at (cos t, sin t); class 1 at (1 - cos t, 0.5 - sin t).
    - "circles": class 0 at (cos a, sin a); class 1 at factor * (cos a, sin a).
    - "linear": draw theta = rng.uniform(0, 2 pi), then offset = rng.uniform(-0.5, 0.5); with
      u = (cos theta, sin theta) and v = (-sin theta, cos theta), class 0 sits at
      (offset - 0.5) u + s v and class 1 at (offset + 0.5) u + s v, s = np.linspace(-1, 1, n_c).

    Then, with rng = np.random.default_rng(seed) (the same generator that drew theta and offset):
    X += noise * rng.standard_normal((n_samples, 2)), always drawn, even when noise is 0; and if `shuffle`,
    perm = rng.permutation(n_samples) reorders X and y together.

    Returns:
        ClassificationTask(kind, seed, X float64 (n_samples, 2), y int64 (n_samples,)).

    Raises:
        ValueError: for an unknown kind or n_samples < 2.
    """
    if kind not in TASK_KINDS:
        raise ValueError(f"unknown task kind {kind!r}; expected one of {TASK_KINDS}")
    if n_samples < 2:
        raise ValueError("n_samples must be at least 2")
    rng = np.random.default_rng(seed)
    n0 = n_samples // 2
    n1 = n_samples - n0
    if kind == "moons":
        t0, t1 = np.linspace(0, np.pi, n0), np.linspace(0, np.pi, n1)
        X0 = np.stack([np.cos(t0), np.sin(t0)], axis=1)
        X1 = np.stack([1 - np.cos(t1), 0.5 - np.sin(t1)], axis=1)
    elif kind == "circles":
        a0 = np.linspace(0, 2 * np.pi, n0, endpoint=False)
        a1 = np.linspace(0, 2 * np.pi, n1, endpoint=False)
        X0 = np.stack([np.cos(a0), np.sin(a0)], axis=1)
        X1 = factor * np.stack([np.cos(a1), np.sin(a1)], axis=1)
    else:
        theta = rng.uniform(0, 2 * np.pi)
        offset = rng.uniform(-0.5, 0.5)
        u = np.array([np.cos(theta), np.sin(theta)])
        v = np.array([-np.sin(theta), np.cos(theta)])
        X0 = (offset - 0.5) * u + np.linspace(-1, 1, n0)[:, None] * v
        X1 = (offset + 0.5) * u + np.linspace(-1, 1, n1)[:, None] * v
    X = np.concatenate([X0, X1]).astype(np.float64)
    y = np.concatenate([np.zeros(n0, dtype=np.int64), np.ones(n1, dtype=np.int64)])
    X = X + noise * rng.standard_normal((n_samples, 2))
    if shuffle:
        perm = rng.permutation(n_samples)
        X, y = X[perm], y[perm]
    return ClassificationTask(kind, seed, X, y)


def probe_grid(X: np.ndarray, resolution: int = 50, margin: float = 0.1) -> Grid:
    """Regular grid of query points covering the data, for drawing a classifier's decision boundary.

    Per axis j, with lo = min X[:, j] and hi = max X[:, j], the padding is pad = margin * (hi - lo), or
    pad = margin when hi == lo; the axis is covered by np.linspace(lo - pad, hi + pad, resolution). The
    points are ordered with the first coordinate varying fastest: point k = (xs[k % resolution],
    ys[k // resolution]), so `labels.reshape(resolution, resolution)[i, j]` belongs to (xs[j], ys[i]).

    Returns:
        Grid(points (resolution**2, 2), xs (resolution,), ys (resolution,)), all float64.

    Raises:
        ValueError: if resolution < 2 or X is not a non-empty (n, 2) array.
    """
    X = np.asarray(X, dtype=np.float64)
    if resolution < 2:
        raise ValueError("resolution must be at least 2")
    if X.ndim != 2 or X.shape[1] != 2 or len(X) == 0:
        raise ValueError("X must be a non-empty (n, 2) array")
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = hi - lo
    pad = np.where(span > 0, margin * span, margin)
    xs = np.linspace(lo[0] - pad[0], hi[0] + pad[0], resolution)
    ys = np.linspace(lo[1] - pad[1], hi[1] + pad[1], resolution)
    gx, gy = np.meshgrid(xs, ys)
    return Grid(np.stack([gx.ravel(), gy.ravel()], axis=1), xs, ys)


def task_family(n_per_kind: int, base_seed: int = 0, kinds: Sequence[str] = TASK_KINDS, n_samples: int = 128,
                noise: float = 0.1) -> list[ClassificationTask]:
    """`n_per_kind` tasks of every kind; task i of the k-th kind uses seed base_seed + 1000 * k + i, so every
    task of the family is reproducible on its own."""
    return [generate_task(kind, n_samples, base_seed + 1000 * k + i, noise)
            for k, kind in enumerate(kinds) for i in range(n_per_kind)]
