"""Options of a MAUVE computation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MauveConfig:
    """How the samples are quantised and how the divergence curve is traced.

    Attributes:
        num_buckets: number of clusters k of the joint quantisation; None chooses it from the sample sizes
            (`buckets`).
        pca_variance: fraction of the variance the PCA projection of the features keeps (`prepare_features`).
        kmeans_iters: at most this many Lloyd iterations per k-means run.
        kmeans_restarts: k-means runs from different k-means++ seeds; the one of lowest inertia is kept.
        seed: seed of the k-means random generator.
        num_lambdas: number of mixture weights lambda on which the divergence curve is evaluated (`lambdas`).
        scaling: the scaling constant c of the divergence curve.
    """

    num_buckets: int | None = None
    pca_variance: float = 0.9
    kmeans_iters: int = 100
    kmeans_restarts: int = 3
    seed: int = 25
    num_lambdas: int = 25
    scaling: float = 5.0

    def __post_init__(self) -> None:
        if self.num_buckets is not None and self.num_buckets < 2:
            raise ValueError(f"num_buckets must be at least 2, got {self.num_buckets}")
        if not 0.0 < self.pca_variance <= 1.0:
            raise ValueError(f"pca_variance must be in (0, 1], got {self.pca_variance}")
        if self.num_lambdas < 1 or self.scaling <= 0 or self.kmeans_iters < 1 or self.kmeans_restarts < 1:
            raise ValueError("num_lambdas, scaling, kmeans_iters and kmeans_restarts must be positive")

    def buckets(self, n_p: int, n_q: int) -> int:
        """The number of clusters for n_p samples of P and n_q of Q: `num_buckets`, or one per ten samples of the
        smaller set (rounded, at least 2)."""
        if self.num_buckets is not None:
            return self.num_buckets
        return max(2, int(round(min(n_p, n_q) / 10)))

    def lambdas(self) -> np.ndarray:
        """The mixture weights at which the divergence curve is evaluated: `num_lambdas` evenly spaced values
        strictly inside (0, 1), increasing."""
        return np.linspace(0.0, 1.0, self.num_lambdas + 2)[1:-1]
