"""A tiny language model: embedding, blocks of (log-linear Mamba-2 layer, SwiGLU MLP), tied read-out."""
from __future__ import annotations

import torch
from torch import nn

from .cache import LevelCache
from .config import ModelConfig
from .loglinear import LogLinearMamba2
from .modules import RMSNorm, SwiGLU


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig, layer_idx: int) -> None:
        super().__init__()
        d = cfg.layer.hidden_size
        self.norm1 = RMSNorm(d, cfg.layer.norm_eps)
        self.mixer = LogLinearMamba2(cfg.layer, layer_idx)
        self.norm2 = RMSNorm(d, cfg.layer.norm_eps)
        self.mlp = SwiGLU(d, cfg.mlp_ratio * d)

    def forward(self, x: torch.Tensor, cache: LevelCache | None) -> torch.Tensor:
        x = x + self.mixer(self.norm1(x), cache=cache)
        return x + self.mlp(self.norm2(x))


class LogLinearLM(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.layer.hidden_size)
        self.blocks = nn.ModuleList(Block(cfg, i) for i in range(cfg.num_layers))
        self.norm = RMSNorm(cfg.layer.hidden_size, cfg.layer.norm_eps)

    def forward(self, ids: torch.Tensor, cache: LevelCache | None = None) -> torch.Tensor:
        """ids: (B, L) token ids -> logits (B, L, vocab_size). With a cache, the L positions continue it."""
        x = self.embed(ids)
        for block in self.blocks:
            x = block(x, cache)
        if cache is not None:
            cache.advance(ids.shape[1])
        return self.norm(x) @ self.embed.weight.T
