"""TinyLM: a pre-norm causal transformer whose MLPs are the editable key-value memories.

Block l computes, for the hidden state h^{l-1} of every position,
    a^l = Attn(LN(h^{l-1})),   k^l = GELU(W_in^l LN(h^{l-1} + a^l)),   m^l = W_out^l k^l,
    h^l = h^{l-1} + a^l + m^l,
so `blocks[l].mlp.w_out.weight` (shape (d_model, d_mlp)) is the matrix W that maps a key k^l to a value m^l.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from alphaedit.config import ModelConfig


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError("d_model must be divisible by n_heads")
        self.n_heads = n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.n_heads, d // self.n_heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.n_heads)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        weights = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        return self.proj((weights @ v).transpose(1, 2).reshape(b, t, d))


class MLP(nn.Module):
    def __init__(self, d_model: int, d_mlp: int) -> None:
        super().__init__()
        self.w_in = nn.Linear(d_model, d_mlp)
        self.act = nn.GELU()
        self.w_out = nn.Linear(d_mlp, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.w_out(self.act(self.w_in(x)))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln_attn = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg.d_model, cfg.n_heads)
        self.ln_mlp = nn.LayerNorm(cfg.d_model)
        self.mlp = MLP(cfg.d_model, cfg.d_mlp)

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        h = h + self.attn(self.ln_attn(h))
        return h + self.mlp(self.ln_mlp(h))


class TinyLM(nn.Module):
    """Token ids (batch, seq) -> next-token logits (batch, seq, vocab_size). Id 0 is padding (right-padded)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.unembed = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        if tokens.ndim != 2 or tokens.shape[1] > self.cfg.max_len:
            raise ValueError(f"tokens must be (batch, seq <= {self.cfg.max_len}), got {tuple(tokens.shape)}")
        h = self.embed(tokens) + self.pos(torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            h = block(h)
        return self.unembed(self.ln_f(h))
