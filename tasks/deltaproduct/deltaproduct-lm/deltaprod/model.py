"""The tiny language model: embeddings, DeltaProduct blocks, output head."""
from __future__ import annotations

import torch
from torch import nn

from deltaprod.cache import RecurrentCache
from deltaprod.config import ModelConfig
from deltaprod.delta_product import DeltaProductAttention
from deltaprod.modules import RMSNorm, SwiGLU


class Block(nn.Module):
    """Pre-norm residual block: DeltaProduct token mixing, then a SwiGLU MLP."""

    def __init__(self, cfg: ModelConfig, layer_idx: int) -> None:
        super().__init__()
        d = cfg.layer.hidden_size
        self.attn_norm = RMSNorm(d, eps=cfg.layer.norm_eps)
        self.attn = DeltaProductAttention(cfg.layer, layer_idx=layer_idx)
        self.mlp_norm = RMSNorm(d, eps=cfg.layer.norm_eps)
        self.mlp = SwiGLU(d, cfg.mlp_ratio * d)

    def forward(self, x: torch.Tensor, attention_mask: torch.Tensor | None = None,
                cache: RecurrentCache | None = None) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x), attention_mask=attention_mask, cache=cache)
        return x + self.mlp(self.mlp_norm(x))


class DeltaProductLM(nn.Module):
    """Token ids (B, L) -> next-token logits (B, L, vocab_size)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        d = cfg.layer.hidden_size
        self.embed = nn.Embedding(cfg.vocab_size, d)
        self.blocks = nn.ModuleList([Block(cfg, i) for i in range(cfg.num_layers)])
        self.norm = RMSNorm(d, eps=cfg.layer.norm_eps)
        self.head = nn.Linear(d, cfg.vocab_size, bias=False)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                cache: RecurrentCache | None = None) -> torch.Tensor:
        """Logits for every position. With a cache, continues from (and updates) its states."""
        x = self.embed(input_ids)
        for block in self.blocks:
            x = block(x, attention_mask=attention_mask, cache=cache)
        if cache is not None:
            cache.advance(input_ids.shape[1])
        return self.head(self.norm(x))
