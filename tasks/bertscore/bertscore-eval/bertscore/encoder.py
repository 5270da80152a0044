"""A tiny Transformer encoder with seeded weights, standing in for BERT.

The weights are random but fixed by ``seed``, so the embeddings (and therefore every score) are
reproducible. Like BERT, the output of every layer is available; BERTScore uses one of them.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from bertscore.tokenizer import PAD_ID


class EncoderLayer(nn.Module):
    """Post-norm Transformer layer: self-attention then a feed-forward block."""

    def __init__(self, dim: int, heads: int, hidden: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor, key_padding: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        logits = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        logits = logits.masked_fill(key_padding[:, None, None, :], float("-inf"))
        mixed = (logits.softmax(dim=-1) @ v).transpose(1, 2).reshape(b, t, d)
        x = self.norm1(x + self.out(mixed))
        return self.norm2(x + self.ff(x))


class TinyEncoder(nn.Module):
    """Token + position embeddings followed by ``num_layers`` encoder layers."""

    def __init__(
        self,
        vocab_size: int,
        dim: int = 32,
        num_layers: int = 2,
        heads: int = 4,
        max_len: int = 64,
        seed: int = 0,
    ):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.layers = nn.ModuleList(EncoderLayer(dim, heads, 2 * dim) for _ in range(num_layers))
        self._init_weights(seed)
        self.eval()

    @torch.no_grad()
    def _init_weights(self, seed: int) -> None:
        gen = torch.Generator().manual_seed(seed)
        for module in self.modules():
            if isinstance(module, nn.Embedding):
                module.weight.copy_(torch.randn(module.weight.shape, generator=gen))
            elif isinstance(module, nn.Linear):
                fan_in = module.weight.shape[1]
                module.weight.copy_(torch.randn(module.weight.shape, generator=gen) / math.sqrt(fan_in))
                module.bias.copy_(0.02 * torch.randn(module.bias.shape, generator=gen))
            elif isinstance(module, nn.LayerNorm):
                module.weight.fill_(1.0)
                module.bias.zero_()

    @torch.no_grad()
    def forward(self, ids: torch.Tensor) -> list[torch.Tensor]:
        """Hidden states of every layer: a list of ``num_layers + 1`` tensors ``[B, L, dim]``.

        Entry 0 is the embedding layer. Positions holding ``PAD_ID`` are not attended to; their own
        hidden states are meaningless and must be masked by the caller.
        """
        padding = ids.eq(PAD_ID)
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.tok(ids) + self.pos(positions)[None]
        states = [x]
        for layer in self.layers:
            x = layer(x, padding)
            states.append(x)
        return states
