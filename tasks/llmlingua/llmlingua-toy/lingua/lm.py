"""The small language model M_s: a one-layer GRU over word ids, in float64, seeded."""
from __future__ import annotations

import torch
from torch import nn


class TinyCausalLM(nn.Module):
    """A causal language model small enough to run in milliseconds on CPU.

    Args:
        vocab_size: number of token ids (`WordTokenizer.vocab_size`).
        dim: width of the embeddings and of the recurrent state.
        seed: seeds the initial weights; the same seed gives the same model.
    """

    def __init__(self, vocab_size: int, dim: int = 32, seed: int = 0) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim, dtype=torch.float64)
        self.rnn = nn.GRU(dim, dim, batch_first=True, dtype=torch.float64)
        self.head = nn.Linear(dim, vocab_size, dtype=torch.float64)
        generator = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, param in self.named_parameters():
                scale = 3.0 / dim**0.5 if name.startswith("head") else 1.0 / dim**0.5
                if name.startswith("embed"):
                    scale = 1.0
                param.copy_(torch.randn(param.shape, generator=generator, dtype=torch.float64) * scale)

    @property
    def dim(self) -> int:
        return self.rnn.hidden_size

    def initial_state(self, batch: int = 1) -> torch.Tensor:
        """The state before any token: zeros of shape (1, batch, dim), float64."""
        return torch.zeros(1, batch, self.dim, dtype=torch.float64)

    def forward(self, ids: torch.Tensor, state: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Next-token logits after each position.

        Args:
            ids: token ids, int64, shape (B, T), T >= 1.
            state: the state after the tokens that precede `ids` (shape (1, B, dim)); None means
                `initial_state(B)`, i.e. nothing precedes `ids`.

        Returns:
            logits: float64, shape (B, T, vocab_size); `logits[b, t]` are the unnormalised log-probabilities of
                the token that follows `ids[b, t]`, given `ids[b, :t + 1]` and the tokens summarised by `state`.
            state: the state after the last token of `ids`, shape (1, B, dim).
        """
        if state is None:
            state = self.initial_state(ids.shape[0])
        hidden, state = self.rnn(self.embed(ids), state)
        return self.head(hidden), state
