"""Seeded tiny Transformer encoder (pre-norm), standing in for a pretrained BERT."""

from __future__ import annotations

import math

import torch
from torch import nn

from moverscore.tokenizer import PAD_ID


class Block(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x: torch.Tensor, pad: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = d // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, h).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(h)
        att = att.masked_fill(pad[:, None, None, :], float("-inf")).softmax(-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class Encoder(nn.Module):
    def __init__(self, vocab_size: int, dim: int = 24, layers: int = 3, heads: int = 2, max_len: int = 48, seed: int = 0):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)
        self.position = nn.Parameter(torch.zeros(max_len, dim))
        self.blocks = nn.ModuleList(Block(dim, heads) for _ in range(layers))
        gen = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                if name.endswith("ln1.weight") or name.endswith("ln2.weight"):
                    p.fill_(1.0)
                elif p.dim() == 1:
                    p.zero_()
                elif name in ("embed.weight", "position"):
                    p.copy_(torch.randn(p.shape, generator=gen) * (1.0 if name == "embed.weight" else 0.3))
                else:
                    p.copy_(torch.randn(p.shape, generator=gen) / math.sqrt(p.shape[1]))
        self.eval()

    @torch.no_grad()
    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        """Hidden states of all layers stacked: ``[layers + 1, B, L, dim]`` (index 0: embeddings)."""
        pad = ids.eq(PAD_ID)
        x = self.embed(ids) + self.position[: ids.shape[1]]
        states = [x]
        for block in self.blocks:
            x = block(x, pad)
            states.append(x)
        return torch.stack(states)
