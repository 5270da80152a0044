"""A tiny causal Transformer LM used as the policy, and its frozen reference copy."""
from __future__ import annotations

import copy
import math

import torch
import torch.nn as nn

from .config import ModelConfig


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, dropout: float = 0.0) -> None:
        super().__init__()
        assert d_model % n_heads == 0
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        bsz, seq_len, d_model = x.shape
        q, k, v = self.qkv(x).split(d_model, dim=-1)
        q, k, v = (t.view(bsz, seq_len, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        causal = torch.ones(seq_len, seq_len, dtype=torch.bool, device=x.device).tril()
        allowed = causal[None, None]
        if attention_mask is not None:
            # keys that are padding are never attended to (a position always sees itself)
            keys = attention_mask[:, None, None, :].bool()
            allowed = allowed & (keys | torch.eye(seq_len, dtype=torch.bool, device=x.device))
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        attn = self.dropout(scores.softmax(dim=-1))
        out = (attn @ v).transpose(1, 2).reshape(bsz, seq_len, d_model)
        return self.proj(out)


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg.d_model, cfg.n_heads, cfg.dropout)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(), nn.Linear(4 * cfg.d_model, cfg.d_model)
        )

    def forward(self, x: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        x = x + self.attn(self.ln1(x), attention_mask)
        return x + self.mlp(self.ln2(x))


class TinyCausalLM(nn.Module):
    """GPT-style decoder: token + position embeddings, pre-LN blocks, tied output head."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.apply(self._init)

    @staticmethod
    def _init(module: nn.Module) -> None:
        if isinstance(module, (nn.Linear, nn.Embedding)):
            nn.init.normal_(module.weight, std=0.02)
        if isinstance(module, nn.Linear) and module.bias is not None:
            nn.init.zeros_(module.bias)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Return next-token logits of shape (batch, seq_len, vocab_size)."""
        seq_len = input_ids.shape[1]
        pos = torch.arange(seq_len, device=input_ids.device)
        x = self.tok_emb(input_ids) + self.pos_emb(pos)[None]
        for block in self.blocks:
            x = block(x, attention_mask)
        return self.ln_f(x) @ self.tok_emb.weight.T


def frozen_reference(policy: nn.Module) -> nn.Module:
    """A frozen copy of the policy at the start of training: pi_ref in the paper."""
    reference = copy.deepcopy(policy)
    reference.eval()
    for p in reference.parameters():
        p.requires_grad_(False)
    return reference
