"""The small byte-level language model whose next-byte entropies drive the patching."""
from __future__ import annotations

import torch
from torch import nn

from blt.config import BOS_ID, BYTE_VOCAB
from blt.layers import TransformerBlock, byte_cross_entropy


class ByteLM(nn.Module):
    """A tiny causal transformer over bytes with sliding-window self-attention."""

    def __init__(self, d: int = 32, n_layers: int = 2, n_heads: int = 2, window: int = 16) -> None:
        super().__init__()
        self.embed = nn.Embedding(BYTE_VOCAB + 1, d)  # the 256 byte values and BOS
        self.blocks = nn.ModuleList(TransformerBlock(d, n_heads, window) for _ in range(n_layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, BYTE_VOCAB)

    def next_byte_logits(self, tokens: torch.Tensor) -> torch.Tensor:
        """Logits of p_e(x_t | x_<t) for every position.

        Args:
            tokens: (B, T) int64 byte values.

        Returns:
            (B, T, 256); row t is the model's distribution over byte t given bytes 0 .. t-1 (row 0 sees only BOS).
        """
        bos = torch.full_like(tokens[:, :1], BOS_ID)
        h = self.embed(torch.cat([bos, tokens[:, :-1]], dim=1))
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h))

    def loss(self, tokens: torch.Tensor) -> torch.Tensor:
        """Mean next-byte cross-entropy of a batch."""
        return byte_cross_entropy(self.next_byte_logits(tokens), tokens)
