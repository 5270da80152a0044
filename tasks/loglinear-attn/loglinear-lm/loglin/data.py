"""Tiny synthetic data: random token sequences with a copy structure (the second half repeats the first)."""
from __future__ import annotations

import torch


def copy_batch(batch: int, half: int, vocab_size: int, generator: torch.Generator) -> torch.Tensor:
    """(batch, 2 * half) token ids: `half` random tokens, then the same tokens again."""
    first = torch.randint(0, vocab_size, (batch, half), generator=generator)
    return torch.cat([first, first], dim=1)
