"""A tiny decoder-only language model: pre-norm blocks of MLA + SwiGLU, tied embeddings, cached generation."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from mla.attention import AbsorbedWeights, MultiHeadLatentAttention
from mla.cache import LatentCache
from mla.config import ModelConfig
from mla.layers import RMSNorm, SwiGLU


class Block(nn.Module):
    """x + attn(norm(x)), then x + mlp(norm(x))."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.attn_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.attn = MultiHeadLatentAttention(cfg)
        self.mlp_norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.mlp = SwiGLU(cfg.d_model, cfg.d_ff)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.attn_norm(x))
        return x + self.mlp(self.mlp_norm(x))

    def decode(self, x: torch.Tensor, cache: LatentCache,
               absorbed: AbsorbedWeights | None) -> tuple[torch.Tensor, LatentCache]:
        """The block over new tokens that follow the cached ones."""
        mixed, cache = self.attn.decode(self.attn_norm(x), cache, absorbed)
        x = x + mixed
        return x + self.mlp(self.mlp_norm(x)), cache


class MlaLM(nn.Module):
    """Token ids (B, T) -> next-token logits (B, T, vocab_size)."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        nn.init.normal_(self.embed.weight, std=cfg.d_model ** -0.5)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
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

    def empty_caches(self, batch_size: int) -> list[LatentCache]:
        """One empty cache per layer, in the dtype of the parameters."""
        dtype = self.embed.weight.dtype
        return [LatentCache.empty(batch_size, self.cfg, dtype) for _ in self.blocks]

    def decode(self, tokens: torch.Tensor, caches: list[LatentCache],
               absorb: bool = True) -> tuple[torch.Tensor, list[LatentCache]]:
        """Logits of new tokens (B, T) that follow the cached ones, and the updated caches."""
        x = self.embed(tokens)
        new_caches = []
        for block, cache in zip(self.blocks, caches):
            x, cache = block.decode(x, cache, block.attn.absorbed_weights() if absorb else None)
            new_caches.append(cache)
        return self.norm(x) @ self.embed.weight.T, new_caches

    @torch.no_grad()
    def generate(self, prompt: torch.Tensor, new_tokens: int, absorb: bool = True) -> torch.Tensor:
        """Greedy continuation of prompt (B, T0) by new_tokens tokens, using the latent caches."""
        logits, caches = self.decode(prompt, self.empty_caches(prompt.shape[0]), absorb)
        out = [prompt]
        for _ in range(new_tokens):
            nxt = logits[:, -1:].argmax(dim=-1)
            out.append(nxt)
            logits, caches = self.decode(nxt, caches, absorb)
        return torch.cat(out, dim=1)
