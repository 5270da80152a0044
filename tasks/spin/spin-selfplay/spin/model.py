"""Toy LSTM language model and the frozen opponent snapshot."""
from __future__ import annotations

import copy

import torch
import torch.nn as nn


class LSTMLanguageModel(nn.Module):
    def __init__(self, vocab_size: int = 20, emb: int = 32, hidden: int = 64) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.embed = nn.Embedding(vocab_size, emb)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, tokens: torch.Tensor, state=None):
        """tokens (batch, seq) -> logits (batch, seq, vocab), new recurrent state."""
        out, state = self.lstm(self.embed(tokens), state)
        return self.head(out), state


def snapshot(model: nn.Module) -> nn.Module:
    """The opponent p_{theta_t}: a frozen copy of the model at the start of an iteration."""
    opponent = copy.deepcopy(model).eval()
    for p in opponent.parameters():
        p.requires_grad_(False)
    return opponent
