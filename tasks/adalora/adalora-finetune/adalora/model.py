"""A tiny Transformer encoder classifier whose projections carry SVD adapters."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

from adalora.layers import SVDLinear


@dataclass
class ModelConfig:
    vocab_size: int = 32
    max_len: int = 16
    d_model: int = 16
    n_heads: int = 2
    d_ff: int = 32
    n_layers: int = 2
    n_classes: int = 2
    lora_r: int = 4
    lora_alpha: float = 8.0
    lora_dropout: float = 0.1


class SelfAttention(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.n_heads = cfg.n_heads
        adapter = dict(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout)
        # As in the paper, every projection of the attention block gets an adapter.
        self.q = SVDLinear(cfg.d_model, cfg.d_model, **adapter)
        self.k = SVDLinear(cfg.d_model, cfg.d_model, **adapter)
        self.v = SVDLinear(cfg.d_model, cfg.d_model, **adapter)
        self.o = SVDLinear(cfg.d_model, cfg.d_model, **adapter)

    def forward(self, x: torch.Tensor, pad_mask: torch.Tensor) -> torch.Tensor:
        batch, length, d_model = x.shape
        head_dim = d_model // self.n_heads

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, length, self.n_heads, head_dim).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-1, -2) / head_dim**0.5
        scores = scores.masked_fill(~pad_mask[:, None, None, :], float("-inf"))
        context = F.softmax(scores, dim=-1) @ v
        return self.o(context.transpose(1, 2).reshape(batch, length, d_model))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        adapter = dict(r=cfg.lora_r, lora_alpha=cfg.lora_alpha, lora_dropout=cfg.lora_dropout)
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = SelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.fc_in = SVDLinear(cfg.d_model, cfg.d_ff, **adapter)
        self.fc_out = SVDLinear(cfg.d_ff, cfg.d_model, **adapter)

    def forward(self, x: torch.Tensor, pad_mask: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln1(x), pad_mask)
        return x + self.fc_out(F.gelu(self.fc_in(self.ln2(x))))


class EncoderClassifier(nn.Module):
    """Embeddings -> Transformer blocks -> mean pooling over real tokens -> linear head."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.n_classes)

    def forward(self, tokens: torch.Tensor, pad_mask: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.tok(tokens) + self.pos(positions)
        for block in self.blocks:
            x = block(x, pad_mask)
        x = self.ln_f(x)
        weights = pad_mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * weights).sum(1) / weights.sum(1).clamp_min(1.0)
        return self.head(pooled)
