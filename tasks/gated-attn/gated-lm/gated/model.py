"""The decoder-only language model: pre-norm blocks of gated attention and a SwiGLU feed-forward."""
from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from gated.attention import GatedAttention
from gated.config import ModelConfig
from gated.layers import RMSNorm, SwiGLU


class LMOutput(NamedTuple):
    logits: torch.Tensor                    # (B, T, vocab_size)
    probs: list[torch.Tensor]               # per layer, (B, n_heads, T, T)
    gates: list[torch.Tensor | None]        # per layer, the gate scores
    hidden: list[torch.Tensor]              # per layer, the residual stream after the block, (B, T, d_model)


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = GatedAttention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = SwiGLU(cfg.d_model, cfg.d_ff)

    def forward(self, x: torch.Tensor):
        a = self.attn(self.attn_norm(x))
        x = x + a.out
        x = x + self.mlp(self.mlp_norm(x))
        return x, a.probs, a.gate


class GatedLM(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor) -> LMOutput:
        t = tokens.shape[1]
        x = self.embed(tokens) + self.pos(torch.arange(t, device=tokens.device))
        probs, gates, hidden = [], [], []
        for block in self.blocks:
            x, p, g = block(x)
            probs.append(p)
            gates.append(g)
            hidden.append(x)
        return LMOutput(self.head(self.norm(x)), probs, gates, hidden)
