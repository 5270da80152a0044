"""Tiny synthetic language-modelling data: sequences from a fixed random bigram chain."""
from __future__ import annotations

import torch


class BigramData:
    def __init__(self, vocab_size: int, seed: int = 0, temperature: float = 0.5) -> None:
        g = torch.Generator().manual_seed(seed)
        self.vocab_size = vocab_size
        self.transition = torch.softmax(torch.randn(vocab_size, vocab_size, generator=g, dtype=torch.float64)
                                        / temperature, dim=1)

    def batch(self, batch_size: int, length: int, generator: torch.Generator) -> torch.Tensor:
        """(batch_size, length) int64 tokens."""
        tokens = torch.empty(batch_size, length, dtype=torch.long)
        tokens[:, 0] = torch.randint(self.vocab_size, (batch_size,), generator=generator)
        for i in range(1, length):
            tokens[:, i] = torch.multinomial(self.transition[tokens[:, i - 1]], 1, generator=generator)[:, 0]
        return tokens
