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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


def divergence_curve(p_hist: np.ndarray, q_hist: np.ndarray, cfg: MauveConfig) -> np.ndarray:
    """The divergence curve of P and Q, evaluated at the mixture weights `cfg.lambdas()`.

    Args:
        p_hist, q_hist: (k,) distributions of P and Q over the same buckets.
        cfg: the options (the weights and the scaling constant).

    Returns:
        (cfg.num_lambdas + 2, 2) float64: one point per weight plus the two end points (0, 1) and (1, 0), rows
        ordered by increasing first coordinate (decreasing second coordinate among equal first coordinates).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def curve_area(curve: np.ndarray) -> float:
    """The area under a curve by the trapezoidal rule.

    Args:
        curve: (m, 2) points (x, y), ordered by increasing x.

    Returns:
        The area, a float.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError
