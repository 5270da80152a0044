"""A deterministic text embedder: hashed character n-grams projected through a seeded random table.

It stands in for a sentence-embedding API: similar strings get similar vectors, and identical strings get
identical vectors. The empty string embeds to the zero vector.
"""

from __future__ import annotations

import zlib

import numpy as np


class HashingEmbedder:
    def __init__(self, dim: int = 100, ngram: int = 3, buckets: int = 4096, seed: int = 0):
        self.ngram = ngram
        self.buckets = buckets
        self.table = np.random.default_rng(seed).standard_normal((buckets, dim))

    def ngrams(self, text: str) -> list[str]:
        if not text:
            return []
        padded = f"<{text}>"
        n = min(self.ngram, len(padded))
        return [padded[i : i + n] for i in range(len(padded) - n + 1)]

    def __call__(self, text: str) -> np.ndarray:
        """A ``[dim]`` float64 embedding of ``text`` (case- and whitespace-sensitive)."""
        rows = [zlib.crc32(gram.encode("utf-8")) % self.buckets for gram in self.ngrams(text)]
        return self.table[rows].sum(axis=0) if rows else np.zeros(self.table.shape[1])
