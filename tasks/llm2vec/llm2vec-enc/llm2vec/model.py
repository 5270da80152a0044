"""A tiny decoder-only transformer LM (pre-norm, learned positions, tied embeddings).

The attention pattern is not built here: `DecoderLM.forward` asks `llm2vec.encoder.build_attention_mask` for a
boolean (B, 1, T, T) mask, True where a query may attend to a key, causal for ordinary LM use and bidirectional
once the model is converted to an encoder.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from llm2vec.config import ModelConfig


def position_ids(attention_mask: torch.Tensor) -> torch.Tensor:
    """(B, T) positions counted from each sequence's first real token (left padding gets position 0)."""
    return (attention_mask.long().cumsum(-1) - 1).clamp(min=0)


class SelfAttention(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.n_heads, self.d_head = cfg.n_heads, cfg.d_model // cfg.n_heads
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)
        # a query with no visible key (a padding row) attends uniformly; its output is never used
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
        probs = self.drop(scores.softmax(-1))
        return self.out((probs @ v).transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(cfg.d_model), nn.LayerNorm(cfg.d_model)
        self.attn = SelfAttention(cfg)
        self.mlp = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_ff), nn.GELU(), nn.Linear(cfg.d_ff, cfg.d_model))
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x + self.drop(self.attn(self.ln1(x), mask))
        return x + self.drop(self.mlp(self.ln2(x)))


class DecoderLM(nn.Module):
    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)

    def set_dropout(self, p: float) -> None:
        """Set the probability of every dropout layer (SimCSE trains with a higher one than pre-training)."""
        for m in self.modules():
            if isinstance(m, nn.Dropout):
                m.p = p

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                bidirectional: bool = False) -> torch.Tensor:
        """Final hidden states (B, T, d_model) of left- or right-padded ids (B, T) with attention_mask (B, T)."""
        from llm2vec.encoder import build_attention_mask

        mask = build_attention_mask(attention_mask, bidirectional)
        x = self.tok(input_ids) + self.pos(position_ids(attention_mask))
        for block in self.blocks:
            x = block(x, mask)
        return self.ln_f(x)

    def logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Next-token logits (B, T, vocab) from hidden states (the LM head is tied to the embedding)."""
        return F.linear(hidden, self.tok.weight)
