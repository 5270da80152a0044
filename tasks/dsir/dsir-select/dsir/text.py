"""Text helpers: word tokenisation and a stable hash of n-grams into buckets."""
from __future__ import annotations

import re

_WORD = re.compile(r"[a-z0-9]+")

_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3
_MASK = (1 << 64) - 1


def tokenize(text: str) -> list[str]:
    """Lower-cased words: maximal runs of ASCII letters and digits; everything else separates words."""
    return _WORD.findall(text.lower())


def fnv1a_64(data: bytes) -> int:
    """64-bit FNV-1a hash of a byte string (stable across processes, unlike Python's hash())."""
    h = _FNV_OFFSET
    for b in data:
        h ^= b
        h = (h * _FNV_PRIME) & _MASK
    return h


def hash_ngram(ngram: tuple[str, ...] | list[str], num_buckets: int) -> int:
    """Bucket in [0, num_buckets) of an n-gram given as its sequence of words (a unigram is a 1-tuple)."""
    if num_buckets <= 0:
        raise ValueError("num_buckets must be positive")
    return fnv1a_64(" ".join(ngram).encode("utf-8")) % num_buckets
