"""The Mixture-of-Recursions language model: embedding, a shared recursion block with routers, LM head."""
from __future__ import annotations

import torch
from torch import nn

from mor.cache import RecursionKVCache
from mor.config import MoRConfig
from mor.layers import Block, RMSNorm
from mor.recursion import decode_step, mor_forward
from mor.router import ExpertChoiceRouter, TokenChoiceRouter


class MoRModel(nn.Module):
    """The shared `blocks` (the recursion block) are applied at every recursion step; with Middle-Cycle sharing
    a unique first layer (`first`) runs before the recursion and a unique last layer (`last`) after it."""

    def __init__(self, cfg: MoRConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(
            Block(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.norm_eps, cfg.rope_base) for _ in range(cfg.n_layers))
        self.first = self.last = None
        if cfg.sharing == "middle_cycle":
            self.first = Block(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.norm_eps, cfg.rope_base)
            self.last = Block(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.norm_eps, cfg.rope_base)
        if cfg.routing == "expert":
            aux_hidden = cfg.aux_router_hidden if cfg.causal_fix == "aux_router" else 0
            self.router = ExpertChoiceRouter(cfg.d_model, cfg.n_recursions, aux_hidden)
        else:
            self.router = TokenChoiceRouter(cfg.d_model, cfg.n_recursions)
        self.norm = RMSNorm(cfg.d_model, cfg.norm_eps)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, ids: torch.Tensor, mode: str = "topk"):
        """ids: (B, T) token ids. mode (expert-choice only): "topk" (training) or "threshold" (inference).

        Returns logits (B, T, vocab) and the routing info of the recursion function.
        """
        return mor_forward(self, ids, mode=mode)

    def loss(self, ids: torch.Tensor):
        """Next-token cross-entropy plus the routing losses weighted by the config. Returns (total, parts)."""
        logits, info = self(ids)
        lm = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        if self.cfg.routing == "expert":
            parts = {"lm": lm, "aux": info["aux_loss"]}
            total = lm + self.cfg.aux_coef * info["aux_loss"]
        else:
            parts = {"lm": lm, "balance": info["balance_loss"], "z": info["z_loss"]}
            total = lm + self.cfg.balance_coef * info["balance_loss"] + self.cfg.z_coef * info["z_loss"]
        return total, parts

    def new_cache(self, batch: int, max_len: int) -> RecursionKVCache:
        cfg = self.cfg
        levels = 1 if cfg.kv_sharing else cfg.n_recursions
        return RecursionKVCache(levels, cfg.n_layers, batch, cfg.n_heads, cfg.head_dim, max_len,
                                dtype=self.embed.weight.dtype)

    @torch.no_grad()
    def prefill(self, ids: torch.Tensor, cache: RecursionKVCache):
        """Run a prompt (B, T) through the model in one pass and fill an empty cache with its keys/values.

        Uses the inference-time routing (threshold mode for expert choice). Returns (logits (B, T, vocab), info).
        """
        return mor_forward(self, ids, mode="threshold", cache=cache)

    @torch.no_grad()
    def step(self, cache: RecursionKVCache, token_ids: torch.Tensor):
        """Decode one token per sequence through the cache. Returns (logits (B, vocab), selected (B, N_r))."""
        return decode_step(self, cache, token_ids)
