"""A tiny decoder-only language model: pre-norm blocks of attention + SwiGLU, tied embeddings."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from moba.config import ModelConfig
from moba.layer import LayerKind, SelfAttention
from moba.layers import RMSNorm, SwiGLU


def layer_kinds(cfg: ModelConfig) -> list[LayerKind]:
    """The attention of every layer: MoBA, except the last `full_attention_layers` layers (full attention)."""
    n_full = cfg.full_attention_layers
    return ["moba"] * (cfg.n_layers - n_full) + ["full"] * n_full


class Block(nn.Module):
    """x + attn(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, cfg: ModelConfig, kind: LayerKind) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = SelfAttention(cfg, kind)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = SwiGLU(cfg.d_model, cfg.d_ff)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))


class MobaLM(nn.Module):
    """Token ids (B, T) -> next-token logits (B, T, vocab_size)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        nn.init.normal_(self.embed.weight, std=cfg.d_model ** -0.5)
        self.blocks = nn.ModuleList(Block(cfg, kind) for kind in layer_kinds(cfg))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.norm(x) @ self.embed.weight.T

    def loss(self, tokens: torch.Tensor) -> torch.Tensor:
        """Mean next-token cross-entropy over positions 1 .. T - 1."""
        logits = self(tokens[:, :-1])
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tokens[:, 1:].reshape(-1))
