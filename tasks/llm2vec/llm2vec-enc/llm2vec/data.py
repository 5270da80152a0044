"""Tiny synthetic corpus and the random draws the training stages share."""
from __future__ import annotations

import torch

WORDS = [f"w{i}" for i in range(40)]


def random_sentences(n: int, generator: torch.Generator, min_len: int = 3, max_len: int = 10) -> list[str]:
    """n sentences of random words (lengths in [min_len, max_len])."""
    out = []
    for _ in range(n):
        length = int(torch.randint(min_len, max_len + 1, (1,), generator=generator))
        idx = torch.randint(0, len(WORDS), (length,), generator=generator)
        out.append(" ".join(WORDS[i] for i in idx.tolist()))
    return out


def draw_mask_positions(candidates: torch.Tensor, prob: float, generator: torch.Generator) -> torch.Tensor:
    """Bernoulli(prob) draw of the positions to mask among the candidates.

    Args:
        candidates: (B, T) bool, True where a token may be masked.
        prob: probability that a candidate is masked.
        generator: the random generator (one uniform draw per entry of the (B, T) grid, row-major).

    Returns:
        (B, T) bool, True at the chosen positions (always a subset of the candidates).
    """
    u = torch.rand(candidates.shape, generator=generator)
    return candidates & (u < prob)
