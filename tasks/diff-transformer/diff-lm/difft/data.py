"""Synthetic batches: copy a random key sequence after a separator (a task that needs attention)."""
from __future__ import annotations

from collections.abc import Iterator

import torch


def copy_batches(batch_size: int, n_keys: int, vocab_size: int, seed: int) -> Iterator[torch.Tensor]:
    """(batch_size, 2 n_keys + 1) int64 batches: n_keys random tokens in [1, vocab), the separator 0, the copy."""
    g = torch.Generator().manual_seed(seed)
    while True:
        keys = torch.randint(1, vocab_size, (batch_size, n_keys), generator=g)
        sep = torch.zeros(batch_size, 1, dtype=torch.long)
        yield torch.cat([keys, sep, keys], dim=1)
