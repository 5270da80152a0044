"""A toy recurrent language model (embedding -> GRU -> tied softmax head)."""
from __future__ import annotations

import torch
import torch.nn as nn


class GRULanguageModel(nn.Module):
    def __init__(self, vocab_size: int = 24, hidden: int = 48, layers: int = 1) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.embed = nn.Embedding(vocab_size, hidden)
        self.rnn = nn.GRU(hidden, hidden, num_layers=layers, batch_first=True)
        self.norm = nn.LayerNorm(hidden)
        nn.init.normal_(self.embed.weight, std=0.1)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (batch, seq_len) -> next-token logits (batch, seq_len, vocab)."""
        states, _ = self.rnn(self.embed(tokens))
        return self.norm(states) @ self.embed.weight.T

    @torch.no_grad()
    def greedy_continue(self, prompt: torch.Tensor, n_tokens: int) -> torch.Tensor:
        """Greedy continuation of one prompt (1-D tensor) by n_tokens tokens."""
        seq = prompt.clone()
        for _ in range(n_tokens):
            logits = self(seq[None])[0, -1]
            seq = torch.cat([seq, logits.argmax().view(1)])
        return seq[prompt.numel():]
