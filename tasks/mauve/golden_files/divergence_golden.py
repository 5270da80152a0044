"""The divergence curve between two quantised text distributions, and MAUVE, the area under it."""

from __future__ import annotations

import numpy as np

from mauve.config import MauveConfig
from mauve.kmeans import kmeans
from mauve.preprocess import prepare_features
from mauve.results import MauveResult, Quantized


def kl_divergence(a: np.ndarray, b: np.ndarray) -> float:
    """KL(a || b) between two distributions over the same buckets.

    Args:
        a, b: 1-D arrays of the same length, non-negative, each summing to 1.

    Returns:
        The divergence in nats, as a float; inf when b is zero on a bucket where a is not.

    Raises:
        ValueError: if a and b are not 1-D arrays of the same length.
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"need two 1-D histograms of the same length, got {a.shape} and {b.shape}")
    support = a > 0
    if np.any(b[support] <= 0):
        return float("inf")
    return float(np.sum(a[support] * np.log(a[support] / b[support])))


def quantize(p_features: np.ndarray, q_features: np.ndarray, cfg: MauveConfig) -> Quantized:
    """Quantise the samples of P and Q jointly into `cfg.buckets(n_p, n_q)` clusters.

    The clustering is fit on the P features followed by the Q features (in that row order).

    Args:
        p_features: (n_p, d) features of the samples of P (human text).
        q_features: (n_q, d) features of the samples of Q (model text).
        cfg: the options.

    Returns:
        The histograms and cluster labels (`mauve.results.Quantized`).

    Raises:
        ValueError: if either array is empty or not 2-D, or their feature sizes differ.
    """
    p = np.asarray(p_features, dtype=np.float64)
    q = np.asarray(q_features, dtype=np.float64)
    if p.ndim != 2 or q.ndim != 2 or p.shape[1] != q.shape[1] or len(p) == 0 or len(q) == 0:
        raise ValueError(f"need two non-empty (n, d) feature arrays of the same d, got {p.shape} and {q.shape}")
    k = cfg.buckets(len(p), len(q))
    labels = kmeans(prepare_features(np.concatenate([p, q]), cfg), k, cfg).labels
    p_labels, q_labels = labels[: len(p)], labels[len(p):]
    p_hist = np.bincount(p_labels, minlength=k) / len(p)
    q_hist = np.bincount(q_labels, minlength=k) / len(q)
    return Quantized(p_hist, q_hist, p_labels, q_labels, k)


def divergence_curve(p_hist: np.ndarray, q_hist: np.ndarray, cfg: MauveConfig) -> np.ndarray:
    """The divergence curve of P and Q, evaluated at the mixture weights `cfg.lambdas()`.

    Args:
        p_hist, q_hist: (k,) distributions of P and Q over the same buckets.
        cfg: the options (the weights and the scaling constant).

    Returns:
        (cfg.num_lambdas + 2, 2) float64: one point per weight plus the two end points (0, 1) and (1, 0), rows
        ordered by increasing first coordinate (decreasing second coordinate among equal first coordinates).
    """
    p = np.asarray(p_hist, dtype=np.float64)
    q = np.asarray(q_hist, dtype=np.float64)
    points = [(0.0, 1.0), (1.0, 0.0)]
    for lam in cfg.lambdas():
        r = lam * p + (1.0 - lam) * q
        points.append((np.exp(-cfg.scaling * kl_divergence(q, r)), np.exp(-cfg.scaling * kl_divergence(p, r))))
    curve = np.array(points, dtype=np.float64)
    return curve[np.lexsort((-curve[:, 1], curve[:, 0]))]


def curve_area(curve: np.ndarray) -> float:
    """The area under a curve by the trapezoidal rule.

    Args:
        curve: (m, 2) points (x, y), ordered by increasing x.

    Returns:
        The area, a float.
    """
    curve = np.asarray(curve, dtype=np.float64)
    x, y = curve[:, 0], curve[:, 1]
    return float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2.0))


def compute_mauve(p_features: np.ndarray, q_features: np.ndarray, cfg: MauveConfig | None = None) -> MauveResult:
    """MAUVE of P (human text) against Q (model text) from features of their samples.

    Args:
        p_features: (n_p, d) features of the samples of P.
        q_features: (n_q, d) features of the samples of Q.
        cfg: the options; None means `MauveConfig()`.

    Returns:
        The score, the divergence curve and the histograms (`mauve.results.MauveResult`).

    Raises:
        ValueError: as `quantize`.
    """
    cfg = cfg if cfg is not None else MauveConfig()
    quantized = quantize(p_features, q_features, cfg)
    curve = divergence_curve(quantized.p_hist, quantized.q_hist, cfg)
    return MauveResult(curve_area(curve), curve, quantized.p_hist, quantized.q_hist, quantized.num_buckets)
