"""A tiny text encoder standing in for the pre-trained language model of HiT.

Entity names are sequences of token ids. The encoder embeds the tokens, mean-pools them over the
non-padding positions and passes the result through a small MLP. The final ``tanh`` keeps every
coordinate in ``(-1, 1)``, so an embedding of dimension ``d`` always lies in the open hypercube
``(-1, 1)^d``; the training objective treats these vectors as points of the Poincare ball that
circumscribes that hypercube (see ``hit/losses.py`` and the method description).
"""
from __future__ import annotations

import torch
from torch import nn

PAD_ID = 0


class HierarchyEncoder(nn.Module):
    """Mean-pooled bag-of-tokens encoder with a tanh output layer."""

    def __init__(self, vocab_size: int, dim: int = 16, hidden: int = 32):
        super().__init__()
        self.dim = dim
        self.embed = nn.Embedding(vocab_size, hidden, padding_idx=PAD_ID)
        self.mlp = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, token_ids: torch.Tensor) -> torch.Tensor:
        """Encode a padded batch of names ``(B, L)`` into embeddings ``(B, dim)`` in ``(-1, 1)^dim``."""
        mask = (token_ids != PAD_ID).unsqueeze(-1).to(self.embed.weight.dtype)
        tokens = self.embed(token_ids) * mask
        pooled = tokens.sum(dim=1) / mask.sum(dim=1).clamp_min(1.0)
        return torch.tanh(self.mlp(pooled))
