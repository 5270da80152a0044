"""A tiny causal language model (one GRU layer, float64), the stand-in for the base LLM."""
from __future__ import annotations

import torch
from torch import nn


class TinyLM(nn.Module):
    """Args: vocab_size (ids 0 = PAD and 1 = BOS included); dim: hidden width; seed: seeds the initial weights."""

    def __init__(self, vocab_size: int, dim: int = 24, seed: int = 0) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, dtype=torch.float64)
        self.rnn = nn.GRU(dim, dim, batch_first=True, dtype=torch.float64)
        self.head = nn.Linear(dim, vocab_size, dtype=torch.float64)
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, param in self.named_parameters():
                scale = 1.0 if name.startswith("embed") else 2.0 / dim**0.5
                param.copy_(torch.randn(param.shape, generator=generator, dtype=torch.float64) * scale)

    def forward(self, ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Run the model over right-padded sequences.

        Args:
            ids: int64 (B, T); every sequence is meant to start with BOS_ID. Positions after a sequence's end may
                hold anything: a position's outputs depend only on the ids at and before it.

        Returns:
            logits: float64 (B, T, vocab_size); logits[b, t] score the token that follows ids[b, t].
            hidden: float64 (B, T, dim), the last hidden state at each position.
        """
        hidden, _ = self.rnn(self.embed(ids))
        return self.head(hidden), hidden
