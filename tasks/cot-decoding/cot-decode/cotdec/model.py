"""A tiny GRU language model with fixed pseudo-random weights (float64), standing in for a pre-trained LM."""

from __future__ import annotations

from collections.abc import Sequence

import torch


class TinyLM(torch.nn.Module):
    """Embedding -> one GRU layer -> linear head over the vocabulary. Weights come from a seeded generator and are
    rounded to multiples of 1/64, so every host builds the same model."""

    def __init__(self, vocab_size: int, hidden: int = 24, seed: int = 0, sharpness: float = 3.0) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)

        def weight(*shape: int, scale: float) -> torch.nn.Parameter:
            w = torch.randn(*shape, generator=g, dtype=torch.float64) * scale
            return torch.nn.Parameter(torch.round(w * 64) / 64)

        self.vocab_size = vocab_size
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
    def next_token_probs(self, ids: Sequence[int]) -> torch.Tensor:
        """The (vocab,) float64 distribution of the token that follows the sequence ids (softmax of the last
        position's logits)."""
        logits = self(torch.tensor([list(ids)], dtype=torch.int64))[0, -1]
        return torch.softmax(logits, dim=-1)
