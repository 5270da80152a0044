"""Synthetic corpora: random token sequences in which a few fixed phrases recur (what a datastore can memorise)."""

from __future__ import annotations

import numpy as np

PHRASES = ((3, 7, 11, 5, 9), (4, 4, 12, 20, 1), (15, 2, 8, 8, 17), (6, 13, 21, 10, 14))


def corpus(rng: np.random.Generator, n_sequences: int, length: int = 24, vocab_size: int = 24,
           phrase_rate: float = 0.5) -> list[list[int]]:
    """n_sequences sequences of `length` tokens. Sequence i starts with the token i % vocab_size (a document
    marker); then, at each position, with probability phrase_rate a whole phrase is copied in, else one uniform
    random token."""
    out = []
    for i in range(n_sequences):
        seq: list[int] = [i % vocab_size]
        while len(seq) < length:
            if rng.random() < phrase_rate:
                seq.extend(PHRASES[int(rng.integers(len(PHRASES)))])
            else:
                seq.append(int(rng.integers(vocab_size)))
        out.append(seq[:length])
    return out
