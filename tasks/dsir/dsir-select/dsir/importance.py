"""DSIR: hashed n-gram features, bag-of-n-grams models, importance weights, resampling, KL reduction."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from dsir.config import DSIRConfig
from dsir.rng import gumbel_noise
from dsir.text import hash_ngram, tokenize


@dataclass
class Selection:
    """Result of one selection run.

    indices: int64 array (k,), positions in the raw list of the selected examples.
    log_weights: float64 array (n_raw,), log importance weight of every raw example.
    target_dist, raw_dist: float64 arrays (num_buckets,), the fitted feature distributions.
    """

    indices: np.ndarray
    log_weights: np.ndarray
    target_dist: np.ndarray
    raw_dist: np.ndarray


def featurize(texts: Sequence[str], config: DSIRConfig) -> np.ndarray:
    """Hashed n-gram count vectors of a list of texts.

    Args:
        texts: n strings.
        config: its `num_buckets` and `ngram_orders` are used.
    Returns:
        int64 array of shape (n, config.num_buckets).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def fit_feature_distribution(counts: np.ndarray, smoothing: float) -> np.ndarray:
    """Bag-of-n-grams model of a dataset from its feature counts.

    Args:
        counts: (n, m) array of non-negative counts (one row per example; n may be 0).
        smoothing: the pseudocount of `DSIRConfig.smoothing`.
    Returns:
        float64 array (m,), a distribution over the m buckets.
    Raises:
        ValueError: if counts is not 2-D, or there is nothing to normalise (no counts and no smoothing).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def importance_log_weights(counts: np.ndarray, target_dist: np.ndarray, raw_dist: np.ndarray) -> np.ndarray:
    """Log importance weights (natural log) of examples given their feature counts.

    Args:
        counts: (n, m) feature counts of the examples.
        target_dist, raw_dist: (m,) fitted feature distributions of the target and the raw data.
    Returns:
        float64 array (n,).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def resample(log_weights: np.ndarray, k: int, rng: np.random.Generator, resample: bool = True) -> np.ndarray:
    """Choose k distinct examples from their log importance weights.

    Args:
        log_weights: (n,) float64 log importance weights.
        k: number of examples to keep, 0 <= k <= n.
        rng: the run's generator; the noise is drawn with `dsir.rng.gumbel_noise(rng, n)`.
        resample: True for importance resampling, False for the deterministic top-k selection.
    Returns:
        int64 array (k,) of distinct indices into log_weights.
    Raises:
        ValueError: if k is outside [0, n].
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def kl_divergence(p: np.ndarray, q: np.ndarray) -> float:
    """KL(p || q) in nats of two distributions over the same buckets (terms with p = 0 contribute 0)."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def kl_reduction(selected_counts: np.ndarray, raw_counts: np.ndarray, target_counts: Sequence[np.ndarray],
                 smoothing: float) -> float:
    """KL reduction of a selected dataset with respect to one or several target datasets.

    Args:
        selected_counts: (k, m) feature counts of the selected examples.
        raw_counts: (n, m) feature counts of the raw dataset.
        target_counts: a non-empty list of (n_t, m) feature counts, one array per target dataset.
        smoothing: the pseudocount used to fit every distribution.
    Returns:
        the KL reduction, a Python float.
    Raises:
        ValueError: if target_counts is empty.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def dsir_select(raw_texts: Sequence[str], target_texts: Sequence[str], k: int, config: DSIRConfig,
                rng: np.random.Generator) -> Selection:
    """Select k of the raw texts to match the target texts.

    Args:
        raw_texts: the n raw examples.
        target_texts: the target examples.
        k: number of raw examples to select, 0 <= k <= n.
        config: feature space, smoothing and whether to resample (`DSIRConfig`).
        rng: the run's generator.
    Returns:
        a `Selection`.
    Raises:
        ValueError: if k is outside [0, n].
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
