"""Synthetic long-range data: each sequence is a random prefix followed by a copy of it."""
from __future__ import annotations

from collections.abc import Iterator

import torch


def batches(batch_size: int, seq_len: int, vocab_size: int, seed: int = 0) -> Iterator[torch.Tensor]:
    """Endless batches of token ids (batch_size, seq_len): the second half repeats the first half."""
    gen = torch.Generator().manual_seed(seed)
    half = (seq_len + 1) // 2
    while True:
        prefix = torch.randint(0, vocab_size, (batch_size, half), generator=gen)
        yield torch.cat([prefix, prefix], dim=1)[:, :seq_len]
