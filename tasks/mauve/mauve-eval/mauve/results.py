"""What a MAUVE computation returns."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Quantized:
    """The joint quantisation of the samples of P and Q.

    Attributes:
        p_hist, q_hist: (k,) float64 histograms of P's and Q's samples over the k clusters (each sums to 1).
        p_labels, q_labels: (n_p,) and (n_q,) int64 cluster of each sample, in [0, k).
        num_buckets: k.
    """

    p_hist: np.ndarray
    q_hist: np.ndarray
    p_labels: np.ndarray
    q_labels: np.ndarray
    num_buckets: int


@dataclass(frozen=True)
class MauveResult:
    """MAUVE of P (human text) against Q (model text).

    Attributes:
        score: MAUVE(P, Q), in (0, 1].
        curve: (num_lambdas + 2, 2) float64 divergence curve, as `divergence_curve` returns it.
        p_hist, q_hist: the quantised distributions the curve was computed from.
        num_buckets: the number of clusters.
    """

    score: float
    curve: np.ndarray
    p_hist: np.ndarray
    q_hist: np.ndarray
    num_buckets: int
