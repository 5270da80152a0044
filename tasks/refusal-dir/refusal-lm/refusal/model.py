"""A tiny pre-norm decoder-only chat model with hook points on its residual stream."""
from __future__ import annotations

import math
from collections.abc import Iterator

import torch
import torch.nn.functional as F
from torch import nn

from .config import ModelConfig


class HookPoint(nn.Module):
    """Identity module marking a residual-stream activation. A forward hook registered on it
    (``register_forward_hook``) that returns a tensor replaces the activation for the rest of the forward pass."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.n_heads = cfg.n_heads
        self.d_head = cfg.d_model // cfg.n_heads
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model, bias=True)
        self.out = nn.Linear(cfg.d_model, cfg.d_model, bias=False)  # writes to the residual stream

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.n_heads, self.d_head).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d_head)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        allowed = causal & mask[:, None, None, :].bool()
        allowed = allowed | torch.eye(t, dtype=torch.bool, device=x.device)  # padding attends to itself
        scores = scores.masked_fill(~allowed, float("-inf"))
        y = scores.softmax(-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, t, d))


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.up = nn.Linear(cfg.d_model, cfg.d_mlp, bias=True)
        self.down = nn.Linear(cfg.d_mlp, cfg.d_model, bias=False)  # writes to the residual stream

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    """x_mid = x_pre + attn(ln1(x_pre)); x_post = x_mid + mlp(ln2(x_mid)); x_post is the next block's x_pre."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = Attention(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = MLP(cfg)
        self.hook_resid_pre = HookPoint()
        self.hook_resid_mid = HookPoint()
        self.hook_resid_post = HookPoint()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.hook_resid_pre(x)
        x = self.hook_resid_mid(x + self.attn(self.ln1(x), mask))
        return self.hook_resid_post(x + self.mlp(self.ln2(x)))


class TinyChatLM(nn.Module):
    """Token and position embeddings write the first residual-stream state; every block adds its attention and
    MLP outputs; a final LayerNorm and the unembedding read the last state."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_embed = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.unembed = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.to(cfg.dtype)

    @property
    def n_layers(self) -> int:
        return len(self.blocks)

    def hook_points(self) -> Iterator[tuple[str, HookPoint]]:
        """(name, module) of every residual-stream hook point, in forward order:
        ``blocks.{l}.hook_resid_pre``, ``blocks.{l}.hook_resid_mid``, ``blocks.{l}.hook_resid_post``."""
        for name, module in self.named_modules():
            if isinstance(module, HookPoint):
                yield name, module

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None) -> torch.Tensor:
        """input_ids, attention_mask: (batch, seq) int64, left-padded. Returns logits (batch, seq, vocab)."""
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        positions = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        x = self.embed(input_ids) + self.pos_embed(positions)
        for block in self.blocks:
            x = block(x, attention_mask)
        return self.unembed(self.ln_f(x))

    def run_with_cache(self, input_ids: torch.Tensor, attention_mask: torch.Tensor | None = None,
                       names: list[str] | None = None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Forward pass that also returns the residual-stream activations (batch, seq, d_model) at the named hook
        points (all of them by default), as seen after any hooks already registered there."""
        cache: dict[str, torch.Tensor] = {}
        handles = []
        for name, module in self.hook_points():
            if names is None or name in names:
                def save(mod, inp, out, name=name):
                    cache[name] = out.detach()
                handles.append(module.register_forward_hook(save))
        try:
            logits = self(input_ids, attention_mask)
        finally:
            for h in handles:
                h.remove()
        return logits, cache


def build_model(cfg: ModelConfig, seed: int = 0) -> TinyChatLM:
    torch.manual_seed(seed)
    return TinyChatLM(cfg)
