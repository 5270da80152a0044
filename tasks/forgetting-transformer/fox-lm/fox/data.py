"""Synthetic token data: sequences with a repeated random prefix (a copy task that rewards long context)."""
from __future__ import annotations

import torch


def copy_batch(batch_size: int, seq_len: int, vocab_size: int, generator: torch.Generator) -> torch.Tensor:
    """(batch_size, seq_len) int64 tokens: a random prefix of length ceil(seq_len / 2), then its repetition."""
    half = (seq_len + 1) // 2
    prefix = torch.randint(0, vocab_size, (batch_size, half), generator=generator)
    return torch.cat([prefix, prefix], dim=1)[:, :seq_len]


def batches(batch_size: int, seq_len: int, vocab_size: int, seed: int):
    """An endless, seeded stream of `copy_batch` batches."""
    generator = torch.Generator().manual_seed(seed)
    while True:
        yield copy_batch(batch_size, seq_len, vocab_size, generator)
