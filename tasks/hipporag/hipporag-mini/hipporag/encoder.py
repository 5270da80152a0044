"""A tiny fixed retrieval encoder: hashed character trigram counts, L2-normalised (stands in for Contriever or
ColBERTv2 in the paper)."""
from __future__ import annotations

import zlib

import numpy as np

from hipporag.text import char_ngrams, normalize_phrase


class PhraseEncoder:
    """Maps phrases to unit vectors; the cosine similarity of two phrases is the dot product of their vectors."""

    def __init__(self, dim: int = 256) -> None:
        self.dim = int(dim)

    def encode(self, phrases: list[str]) -> np.ndarray:
        """(len(phrases), dim) float64, each row of unit L2 norm (an all-zero row for an empty phrase).

        Phrases are normalised with `normalize_phrase` first, so "Marie Curie" and "marie curie" encode alike."""
        out = np.zeros((len(phrases), self.dim), dtype=np.float64)
        for row, phrase in enumerate(phrases):
            for gram in char_ngrams(normalize_phrase(phrase)):
                out[row, zlib.crc32(gram.encode("utf-8")) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)

    def similarity(self, a: list[str], b: list[str]) -> np.ndarray:
        """(len(a), len(b)) float64 cosine similarities."""
        return self.encode(a) @ self.encode(b).T
