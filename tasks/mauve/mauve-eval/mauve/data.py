"""Synthetic "human" and "model" texts: a Zipfian vocabulary, and decoders that degenerate into repetition."""

from __future__ import annotations

import numpy as np

VOCAB = tuple(f"w{i}" for i in range(200))


def zipf_probs(size: int, exponent: float) -> np.ndarray:
    """Zipf's law over `size` word ranks, normalised."""
    p = 1.0 / np.arange(1, size + 1, dtype=np.float64) ** exponent
    return p / p.sum()


def human_texts(n: int, rng: np.random.Generator, length: int = 20) -> list[str]:
    """n texts of `length` words drawn from the Zipfian vocabulary (exponent 1.1)."""
    p = zipf_probs(len(VOCAB), 1.1)
    return [" ".join(VOCAB[j] for j in rng.choice(len(VOCAB), size=length, p=p)) for _ in range(n)]


def model_texts(n: int, rng: np.random.Generator, *, exponent: float = 1.1, repeat: float = 0.0,
                length: int = 20) -> list[str]:
    """n texts from a "decoder": words from a Zipf law of the given exponent (larger = more peaked, like a low
    temperature); with probability `repeat` at each position the previous word is repeated (degeneration)."""
    p = zipf_probs(len(VOCAB), exponent)
    texts = []
    for _ in range(n):
        words: list[str] = []
        for _ in range(length):
            if words and rng.random() < repeat:
                words.append(words[-1])
            else:
                words.append(VOCAB[int(rng.choice(len(VOCAB), p=p))])
        texts.append(" ".join(words))
    return texts
