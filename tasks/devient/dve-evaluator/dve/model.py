"""The inference-aware evaluator: a fused image/hypothesis/update encoder with two heads.

* the score head outputs the entailment strength ``s`` of the hypothesis given image and update;
* the classification head outputs logits over the update type (weakener, strengthener).
"""
from __future__ import annotations

import torch
from torch import nn

from .data import PAD_ID


class BagOfTokens(nn.Module):
    def __init__(self, vocab: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD_ID)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        mask = (ids != PAD_ID).unsqueeze(-1).float()
        return (self.embed(ids) * mask).sum(1) / mask.sum(1).clamp_min(1.0)


class InferenceAwareEvaluator(nn.Module):
    def __init__(self, image_dim: int = 16, vocab: int = 50, dim: int = 32):
        super().__init__()
        self.image_proj = nn.Linear(image_dim, dim)
        self.text = BagOfTokens(vocab, dim)
        self.fuse = nn.Sequential(nn.Linear(3 * dim, dim), nn.GELU(), nn.Linear(dim, dim), nn.GELU())
        self.score_head = nn.Linear(dim, 1)
        self.type_head = nn.Linear(dim, 2)

    def forward(self, images, hypotheses, updates):
        """Return ``(scores (N,), logits (N, 2))``."""
        h = torch.cat([self.image_proj(images), self.text(hypotheses), self.text(updates)], dim=-1)
        h = self.fuse(h)
        return self.score_head(h).squeeze(-1), self.type_head(h)
