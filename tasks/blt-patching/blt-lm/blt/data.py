"""Synthetic byte text: words drawn from a small random lexicon, separated by spaces."""
from __future__ import annotations

from collections.abc import Iterator

import torch

LETTERS = torch.arange(ord("a"), ord("z") + 1)
SPACE = ord(" ")


def lexicon(n_words: int, gen: torch.Generator, min_len: int = 2, max_len: int = 7) -> list[torch.Tensor]:
    """n_words random lower-case words."""
    lengths = torch.randint(min_len, max_len + 1, (n_words,), generator=gen)
    return [LETTERS[torch.randint(0, len(LETTERS), (int(n),), generator=gen)] for n in lengths]


def text(words: list[torch.Tensor], length: int, gen: torch.Generator) -> torch.Tensor:
    """One (length,) int64 byte sequence: random words of the lexicon joined by single spaces."""
    parts: list[torch.Tensor] = []
    total = 0
    while total < length:
        word = words[int(torch.randint(0, len(words), (1,), generator=gen))]
        parts += [word, torch.tensor([SPACE])]
        total += len(word) + 1
    return torch.cat(parts)[:length].long()


def batches(batch_size: int, seq_len: int, seed: int, n_words: int = 12) -> Iterator[torch.Tensor]:
    """An endless stream of (batch_size, seq_len) int64 byte batches."""
    gen = torch.Generator().manual_seed(seed)
    words = lexicon(n_words, gen)
    while True:
        yield torch.stack([text(words, seq_len, gen) for _ in range(batch_size)])
