"""The decoder-only language model: pre-norm blocks of gated attention and a SwiGLU feed-forward."""
from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from gated.attention import GatedAttention
from gated.cache import KVCache, LayerCache
from gated.config import ModelConfig
from gated.layers import RMSNorm, SwiGLU


class LMOutput(NamedTuple):
    logits: torch.Tensor                    # (B, T, vocab_size)
    probs: list[torch.Tensor]               # per layer, (B, n_heads, T, T_total)
    gates: list[torch.Tensor | None]        # per layer, the gate scores
    hidden: list[torch.Tensor]              # per layer, the residual stream after the block, (B, T, d_model)


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = GatedAttention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = SwiGLU(cfg.d_model, cfg.d_ff)

    def forward(self, x: torch.Tensor, cache: LayerCache | None = None):
        a = self.attn(self.attn_norm(x), cache)
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

    def new_cache(self) -> KVCache:
        return KVCache.empty(self.cfg.n_layers)

    def forward(self, tokens: torch.Tensor, cache: KVCache | None = None) -> LMOutput:
        """tokens: (B, T) continuing the positions the cache has seen (from 0 without a cache)."""
        t = tokens.shape[1]
        start = cache.length if cache is not None else 0
        x = self.embed(tokens) + self.pos(torch.arange(start, start + t, device=tokens.device))
        probs, gates, hidden = [], [], []
        for i, block in enumerate(self.blocks):
            x, p, g = block(x, cache.layers[i] if cache is not None else None)
            probs.append(p)
            gates.append(g)
            hidden.append(x)
        return LMOutput(self.head(self.norm(x)), probs, gates, hidden)

    @torch.no_grad()
    def generate(self, prompt: torch.Tensor, n_new: int, use_cache: bool = True) -> torch.Tensor:
        """Greedy continuation: (B, T) -> (B, T + n_new)."""
        tokens = prompt
        cache = self.new_cache() if use_cache else None
        step = prompt
        for _ in range(n_new):
            logits = self(step, cache).logits if use_cache else self(tokens).logits
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            tokens = torch.cat([tokens, nxt], dim=1)
            step = nxt
        return tokens
