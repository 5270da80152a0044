"""The decoder-only language model with Multi-Token Attention (Section 4.2 of paper.md, at toy scale)."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from mta.attention import MTAttention
from mta.cache import KVCache, LayerCache
from mta.config import ModelConfig
from mta.layers import RMSNorm, SwiGLU


class Block(nn.Module):
    """Pre-norm residual block: multi-token attention, then SwiGLU."""

    def __init__(self, cfg: ModelConfig, layer: int) -> None:
        super().__init__()
        self.norm1 = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = MTAttention(cfg, layer)
        self.norm2 = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = SwiGLU(cfg.d_model, cfg.d_ff)

    def forward(self, x: torch.Tensor, cache: LayerCache | None = None) -> torch.Tensor:
        y = x + self.attn(self.norm1(x), cache)
        return y + self.mlp(self.norm2(y))


class MTALM(nn.Module):
    """Token embedding, `n_layers` blocks (layer indices 1 .. L), a final norm and an output head."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg, layer) for layer in range(1, cfg.n_layers + 1))
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def new_cache(self) -> KVCache:
        return KVCache.empty(self.cfg.n_layers)

    def forward(self, tokens: torch.Tensor, cache: KVCache | None = None) -> torch.Tensor:
        """(B, T) int64 tokens -> (B, T, vocab_size) logits. With a cache, the tokens continue the cached ones."""
        start = 0 if cache is None else cache.length
        if start + tokens.shape[1] > self.cfg.max_len:
            raise ValueError(f"sequence longer than max_len={self.cfg.max_len}")
        x = self.tok_emb(tokens)
        for i, block in enumerate(self.blocks):
            x = block(x, None if cache is None else cache.layers[i])
        return self.lm_head(self.norm(x))

    def loss(self, batch: torch.Tensor, loss_mask: torch.Tensor | None = None) -> torch.Tensor:
        """Mean next-token cross-entropy of a (B, T + 1) batch, over the targets where `loss_mask` (B, T) is True."""
        logits = self(batch[:, :-1])
        losses = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1), reduction="none")
        if loss_mask is None:
            return losses.mean()
        weights = loss_mask.reshape(-1).to(losses.dtype)
        return (losses * weights).sum() / weights.sum()

    @torch.no_grad()
    def generate(self, prompt: torch.Tensor, max_new_tokens: int, use_cache: bool = True) -> torch.Tensor:
        """Greedy continuation of a (B, T) prompt: returns (B, T + max_new_tokens) tokens.

        With `use_cache`, the prompt is encoded once and every new token is fed alone through the cache;
        otherwise the whole sequence is re-encoded at every step.
        """
        tokens = prompt
        cache = self.new_cache() if use_cache else None
        logits = self(prompt, cache)
        for _ in range(max_new_tokens):
            nxt = logits[:, -1].argmax(-1, keepdim=True)
            tokens = torch.cat([tokens, nxt], dim=1)
            logits = self(nxt, cache) if cache is not None else self(tokens)
        return tokens
