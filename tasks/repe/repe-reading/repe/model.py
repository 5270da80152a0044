"""A tiny causal transformer that returns every layer's hidden state."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import torch
from torch import nn

EditFn = Callable[[int, torch.Tensor], torch.Tensor]


@dataclass
class ModelConfig:
    vocab_size: int = 40
    d_model: int = 24
    n_layers: int = 4
    n_heads: int = 4
    d_ff: int = 48
    max_len: int = 32


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = nn.MultiheadAttention(cfg.d_model, cfg.n_heads, batch_first=True)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.ff = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_ff), nn.GELU(), nn.Linear(cfg.d_ff, cfg.d_model))

    def forward(self, x: torch.Tensor, causal: torch.Tensor) -> torch.Tensor:
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=causal, need_weights=False)[0]
        return x + self.ff(self.ln2(x))


class TinyCausalLM(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor, edit: Optional[EditFn] = None) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return (logits, hidden_states): hidden_states[0] is the embedding output and hidden_states[l]
        the residual stream after block l, each (batch, seq_len, d_model). `edit(l, x)` may rewrite
        hidden_states[l] before the next block reads it."""
        t = tokens.shape[1]
        x = self.emb(tokens) + self.pos(torch.arange(t, device=tokens.device))
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=tokens.device), diagonal=1)
        hidden = []
        for layer in range(self.cfg.n_layers + 1):
            if layer > 0:
                x = self.blocks[layer - 1](x, causal)
            if edit is not None:
                x = edit(layer, x)
            hidden.append(x)
        return self.lm_head(self.ln_f(x)), hidden
