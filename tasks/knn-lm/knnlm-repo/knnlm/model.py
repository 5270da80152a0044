"""A tiny GRU language model with fixed pseudo-random weights (float64); its context vectors are the keys."""

from __future__ import annotations

from collections.abc import Sequence

import torch


class TinyLM(torch.nn.Module):
    """Embedding -> one GRU layer -> linear head. Weights come from a seeded generator, rounded to multiples of
    1/64, so every host builds the same model."""

    def __init__(self, vocab_size: int = 24, hidden: int = 16, seed: int = 0) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)

        def weight(*shape: int, scale: float) -> torch.nn.Parameter:
            w = torch.randn(*shape, generator=g, dtype=torch.float64) * scale
            return torch.nn.Parameter(torch.round(w * 64) / 64)

        self.vocab_size = vocab_size
        self.embed = weight(vocab_size, hidden, scale=1.0)
        self.gru = torch.nn.GRU(hidden, hidden, batch_first=True, dtype=torch.float64)
        for name, p in self.gru.named_parameters():
            setattr(self.gru, name, weight(*p.shape, scale=0.6))
        self.head = weight(vocab_size, hidden, scale=1.5 / hidden**0.5)
        self.head_bias = weight(vocab_size, scale=0.3)

    @torch.no_grad()
    def context_vectors(self, ids: Sequence[int]) -> torch.Tensor:
        """(len(ids), hidden) float64: row t is the model's representation of the context ids[: t + 1], the vector
        from which it predicts ids[t + 1]."""
        hidden, _ = self.gru(self.embed[torch.tensor([list(ids)], dtype=torch.int64)])
        return hidden[0]

    @torch.no_grad()
    def logprobs(self, ids: Sequence[int]) -> torch.Tensor:
        """(len(ids), vocab) float64: row t is the log-distribution of the token after ids[: t + 1]."""
        return torch.log_softmax(self.context_vectors(ids) @ self.head.T + self.head_bias, dim=-1)
