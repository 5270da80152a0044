"""The rolling polynomial hash of byte n-grams used by the hash n-gram embeddings."""
from __future__ import annotations

import torch

HASH_PRIME = 1_000_000_007
"""The multiplier a of RollPolyHash: a 10-digit prime."""

MAX_MODULUS = 2**31


def roll_poly_hash(ngrams: torch.Tensor, modulus: int, base: int = HASH_PRIME) -> torch.Tensor:
    """RollPolyHash of byte n-grams, reduced modulo `modulus`, computed exactly.

    Args:
        ngrams: (..., n) int64 byte values; ngrams[..., -1] is the newest byte b_i of the n-gram and
            ngrams[..., -j] is b_{i-j+1}.
        modulus: the size of the hash table, 1 <= modulus <= 2**31.
        base: the multiplier a.

    Returns:
        (...) int64 in [0, modulus): (sum_{j=1..n} b_{i-j+1} * a^(j-1)) mod modulus, without overflow.

    Raises:
        ValueError: if modulus is out of range or ngrams is not an integer tensor.
    """
    if not 1 <= modulus <= MAX_MODULUS:
        raise ValueError(f"modulus must be in [1, 2**31], got {modulus}")
    if ngrams.dtype != torch.int64:
        raise ValueError(f"n-grams must be int64, got {ngrams.dtype}")
    a = base % modulus
    h = torch.zeros(ngrams.shape[:-1], dtype=torch.int64, device=ngrams.device)
    for k in range(ngrams.shape[-1]):  # Horner's rule from the oldest byte: every partial value stays < 2**62
        h = (h * a + ngrams[..., k] % modulus) % modulus
    return h
