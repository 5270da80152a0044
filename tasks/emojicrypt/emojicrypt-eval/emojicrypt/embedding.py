"""A deterministic text embedder: hashed character n-grams projected through a seeded random table.

It stands in for a sentence-embedding API: similar strings get similar vectors, and identical strings get
identical vectors. The empty string embeds to the zero vector.
"""

from __future__ import annotations

import zlib

import torch


class HashingEmbedder:
    def __init__(self, dim: int = 100, ngram: int = 3, buckets: int = 4096, seed: int = 0):
        self.ngram = ngram
        self.buckets = buckets
        gen = torch.Generator().manual_seed(seed)
        self.table = torch.randn(buckets, dim, generator=gen, dtype=torch.float64)

    def ngrams(self, text: str) -> list[str]:
        if not text:
            return []
        padded = f"<{text}>"
        n = min(self.ngram, len(padded))
        return [padded[i : i + n] for i in range(len(padded) - n + 1)]

    def __call__(self, text: str) -> torch.Tensor:
        """A ``[dim]`` float64 embedding of ``text`` (case- and whitespace-sensitive)."""
        vec = torch.zeros(self.table.shape[1], dtype=torch.float64)
        for gram in self.ngrams(text):
            vec += self.table[zlib.crc32(gram.encode("utf-8")) % self.buckets]
        return vec
