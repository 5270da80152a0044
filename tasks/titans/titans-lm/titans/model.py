"""Titans as a layer (MAL): persistent memory, then the neural memory layer, then sliding-window attention."""
from __future__ import annotations

import torch
from torch import nn

from titans.config import TitansConfig
from titans.layers import NeuralMemory, PersistentMemory, SlidingWindowAttention


class TitansMAL(nn.Module):
    def __init__(self, cfg: TitansConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.persistent = PersistentMemory(cfg)
        self.norm1 = nn.LayerNorm(cfg.dim)
        self.memory = NeuralMemory(cfg)
        self.norm2 = nn.LayerNorm(cfg.dim)
        self.attn = SlidingWindowAttention(cfg)
        self.norm3 = nn.LayerNorm(cfg.dim)
        self.head = nn.Linear(cfg.dim, cfg.vocab_size)

    def forward(self, tokens: torch.Tensor, sequential: bool = False) -> torch.Tensor:
        """tokens: (B, T) int64 -> logits (B, T, vocab_size)."""
        P = self.cfg.n_persistent
        x = self.persistent(self.embed(tokens))
        x = x + self.memory(self.norm1(x), sequential=sequential)
        x = x + self.attn(self.norm2(x), n_prefix=P)
        return self.head(self.norm3(x))[:, P:]
