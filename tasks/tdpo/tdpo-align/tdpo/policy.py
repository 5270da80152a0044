"""Toy decoder-only Transformer built from torch's encoder layers with a causal mask."""
from __future__ import annotations

import copy

import torch
import torch.nn as nn


class ToyDecoder(nn.Module):
    def __init__(self, vocab_size: int = 28, d_model: int = 32, n_heads: int = 4, n_layers: int = 2,
                 max_len: int = 48) -> None:
        super().__init__()
        self.vocab_size = vocab_size
        self.tokens = nn.Embedding(vocab_size, d_model)
        self.positions = nn.Parameter(torch.zeros(max_len, d_model))
        layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=2 * d_model, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.out = nn.Linear(d_model, vocab_size, bias=False)
        nn.init.normal_(self.positions, std=0.02)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """input_ids (batch, seq) -> logits (batch, seq, vocab); position t predicts token t + 1."""
        seq = input_ids.shape[1]
        causal = torch.triu(torch.full((seq, seq), float("-inf")), diagonal=1)
        h = self.tokens(input_ids) + self.positions[:seq]
        return self.out(self.body(h, mask=causal, is_causal=True))


def make_reference(policy: nn.Module) -> nn.Module:
    """pi_ref: a frozen copy of the initial policy."""
    ref = copy.deepcopy(policy).eval()
    ref.requires_grad_(False)
    return ref
