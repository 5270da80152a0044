"""Tiny synthetic data: random sequences in which the second half repeats the first (a recall task)."""
from __future__ import annotations

import torch


def recall_batch(batch_size: int, seq_len: int, vocab_size: int, g: torch.Generator) -> torch.Tensor:
    half = seq_len // 2
    first = torch.randint(0, vocab_size, (batch_size, half), generator=g)
    rest = first[:, : seq_len - half]
    return torch.cat([first, rest], 1)
