"""Synthetic movie reviews whose sentiment is the balance of their positive and negative words."""

from __future__ import annotations

import numpy as np

POSITIVE = ("great", "good", "fun", "loved")
NEGATIVE = ("bad", "awful", "boring", "hated")
NEUTRAL = ("the", "movie", "plot", "acting", "was", "is", "and", "it", "this", "film", "story", "ending", "very")


def review(rng: np.random.Generator, label: int, length: int = 6) -> str:
    """A review of class label (0 negative, 1 positive): neutral words with two or three words of its polarity."""
    words = list(rng.choice(NEUTRAL, size=length))
    polar = POSITIVE if label == 1 else NEGATIVE
    for _ in range(int(rng.integers(2, 4))):
        words[int(rng.integers(length))] = str(rng.choice(polar))
    return " ".join(words)


def dataset(rng: np.random.Generator, n: int) -> list[tuple[str, int]]:
    """n (review, label) pairs with balanced labels in random order."""
    labels = rng.permutation(np.arange(n) % 2)
    return [(review(rng, int(y)), int(y)) for y in labels]
