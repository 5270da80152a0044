"""A tiny pre-LN transformer language model that exposes every layer's hidden state."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import torch
from torch import nn

# edit(layer_index, hidden) -> hidden, applied to hidden_states[layer_index] before the next block reads it
EditFn = Callable[[int, torch.Tensor], torch.Tensor]


@dataclass
class TinyLMConfig:
    vocab_size: int = 64
    d_model: int = 32
    n_layers: int = 6
    n_heads: int = 4
    d_ff: int = 64
    max_len: int = 64
    # Planted mechanism: from layer `massive_start` (a hidden_states index) up to, but excluding,
    # layer `massive_end`, the first token carries `massive_value` in each of `massive_dims`.
    massive_dims: tuple[int, ...] = field(default_factory=tuple)
    massive_value: float = 0.0
    massive_start: int = 2
    massive_end: int = 5


class Block(nn.Module):
    def __init__(self, cfg: TinyLMConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = nn.MultiheadAttention(cfg.d_model, cfg.n_heads, batch_first=True)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_ff), nn.GELU(), nn.Linear(cfg.d_ff, cfg.d_model))

    def forward(self, x: torch.Tensor, causal: torch.Tensor, pad: Optional[torch.Tensor]) -> torch.Tensor:
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=causal, key_padding_mask=pad, need_weights=False)
        x = x + a
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, cfg: TinyLMConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        bias = torch.zeros(cfg.d_model)
        bias[list(cfg.massive_dims)] = cfg.massive_value
        self.register_buffer("massive_bias", bias)

    def _plant(self, layer: int, x: torch.Tensor) -> torch.Tensor:
        if not self.cfg.massive_dims:
            return x
        if layer == self.cfg.massive_start:
            x = x.clone()
            x[:, 0] = x[:, 0] + self.massive_bias
        elif layer == self.cfg.massive_end:
            x = x.clone()
            x[:, 0] = x[:, 0] - self.massive_bias
        return x

    def forward(self, tokens: torch.Tensor, attention_mask: Optional[torch.Tensor] = None,
                edit: Optional[EditFn] = None) -> tuple[torch.Tensor, list[torch.Tensor]]:
        """Return (logits, hidden_states); hidden_states[0] is the embedding output and
        hidden_states[l] the residual stream after block l, each of shape (batch, seq_len, d_model)."""
        _, t = tokens.shape
        x = self.tok(tokens) + self.pos(torch.arange(t, device=tokens.device))
        causal = torch.triu(torch.ones(t, t, dtype=torch.bool, device=tokens.device), diagonal=1)
        pad = None if attention_mask is None else ~attention_mask.bool()
        hidden = []
        for layer in range(self.cfg.n_layers + 1):
            if layer > 0:
                x = self.blocks[layer - 1](x, causal, pad)
                x = self._plant(layer, x)
            if edit is not None:
                x = edit(layer, x)
            hidden.append(x)
        return self.head(self.ln_f(x)), hidden


def lm_loss(logits: torch.Tensor, tokens: torch.Tensor, attention_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
    """Next-token cross-entropy averaged over the predicted (non-padded) positions."""
    targets = tokens[:, 1:]
    logp = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, targets.unsqueeze(-1)).squeeze(-1)
    if attention_mask is None:
        return -logp.mean()
    m = attention_mask[:, 1:].to(logp.dtype)
    return -(logp * m).sum() / m.sum()
