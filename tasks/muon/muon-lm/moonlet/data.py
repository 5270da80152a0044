"""Synthetic token batches: sequences drawn from a fixed random bigram table, so there is something to learn."""
from __future__ import annotations

from collections.abc import Iterator

import torch


def bigram_table(vocab_size: int, seed: int) -> torch.Tensor:
    """A (vocab_size, vocab_size) row-stochastic transition matrix with a few likely successors per token."""
    g = torch.Generator().manual_seed(seed)
    logits = 3.0 * torch.randn(vocab_size, vocab_size, generator=g, dtype=torch.float64)
    return torch.softmax(logits, dim=-1)


def batches(batch_size: int, seq_len: int, vocab_size: int, seed: int) -> Iterator[torch.Tensor]:
    """An endless stream of (batch_size, seq_len + 1) int64 token batches (inputs and shifted targets)."""
    table = bigram_table(vocab_size, seed)
    g = torch.Generator().manual_seed(seed + 1)
    while True:
        tokens = torch.empty(batch_size, seq_len + 1, dtype=torch.long)
        tokens[:, 0] = torch.randint(0, vocab_size, (batch_size,), generator=g)
        for t in range(seq_len):
            tokens[:, t + 1] = torch.multinomial(table[tokens[:, t]], 1, generator=g).squeeze(-1)
        yield tokens
