"""Tiny GRU language models with fixed pseudo-random weights (float64): an expert and an amateur."""

from __future__ import annotations

from collections.abc import Sequence

import torch


class TinyLM(torch.nn.Module):
    """Embedding -> one GRU layer -> linear head over the vocabulary. Weights come from a seeded generator and are
    rounded to multiples of 1/64, so every host builds the same model."""

    def __init__(self, vocab_size: int = 16, hidden: int = 24, seed: int = 0, sharpness: float = 3.0) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)

        def weight(*shape: int, scale: float) -> torch.nn.Parameter:
            w = torch.randn(*shape, generator=g, dtype=torch.float64) * scale
            return torch.nn.Parameter(torch.round(w * 64) / 64)

        self.vocab_size = vocab_size
        self.calls = 0
        self.embed = weight(vocab_size, hidden, scale=1.0)
        self.gru = torch.nn.GRU(hidden, hidden, batch_first=True, dtype=torch.float64)
        for name, p in self.gru.named_parameters():
            setattr(self.gru, name, weight(*p.shape, scale=0.5))
        self.head = weight(vocab_size, hidden, scale=sharpness / hidden**0.5)
        self.head_bias = weight(vocab_size, scale=0.5)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """ids: (batch, length) int64 -> logits (batch, length, vocab) float64."""
        hidden, _ = self.gru(self.embed[ids])
        return hidden @ self.head.T + self.head_bias

    @torch.no_grad()
    def logits(self, ids: Sequence[int]) -> torch.Tensor:
        """(len(ids), vocab) float64: row i holds the logits of the token that follows ids[: i + 1]. One call is one
        forward pass of the model (`calls` counts them)."""
        self.calls += 1
        return self(torch.tensor([list(ids)], dtype=torch.int64))[0]


def make_pair(vocab_size: int = 16, seed: int = 0) -> tuple[TinyLM, TinyLM]:
    """An (expert, amateur) pair fixed by seed: the amateur is a smaller model (hidden size 6) with its own
    weights and a flatter output layer."""
    return TinyLM(vocab_size, hidden=24, seed=seed), TinyLM(vocab_size, hidden=6, seed=seed + 500, sharpness=1.5)
