"""A tiny deterministic text featuriser standing in for the language model whose features MAUVE uses.

Each word gets a fixed random vector (seeded by a checksum of the word); a text's feature is a weighted mean of
its words' vectors, later words weighing more (a crude "last hidden state"), passed through tanh.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np


def word_vector(word: str, dim: int, seed: int = 0) -> np.ndarray:
    """The fixed (dim,) vector of a word."""
    rng = np.random.default_rng(zlib.crc32(word.encode("utf-8")) + 7919 * seed)
    return rng.standard_normal(dim)


def featurize(texts: Sequence[str], dim: int = 32, seed: int = 0) -> np.ndarray:
    """(len(texts), dim) float64 features of whitespace-tokenised texts (an empty text gets zeros)."""
    out = np.zeros((len(texts), dim))
    for i, text in enumerate(texts):
        words = text.split()
        if not words:
            continue
        weights = np.arange(1, len(words) + 1, dtype=np.float64)
        vectors = np.stack([word_vector(w, dim, seed) for w in words])
        out[i] = np.tanh((weights[:, None] * vectors).sum(axis=0) / weights.sum())
    return out
