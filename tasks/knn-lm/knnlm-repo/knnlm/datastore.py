"""The datastore: one (key, value) entry per token of a corpus."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Datastore:
    """keys: (n, hidden) float64 context vectors; values: (n,) int64 the token that followed each context;
    vocab_size: the size of the vocabulary the values come from."""

    keys: torch.Tensor
    values: torch.Tensor
    vocab_size: int

    def __len__(self) -> int:
        return int(self.values.numel())
