"""A tiny causal transformer that accepts token ids or input embeddings (no KV cache: every call re-reads the
whole sequence)."""
from __future__ import annotations

import math

import torch
from torch import nn

from .config import ModelConfig


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.n_heads = cfg.n_heads
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.ff = nn.Sequential(nn.Linear(cfg.d_model, cfg.d_ff), nn.GELU(), nn.Linear(cfg.d_ff, cfg.d_model))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = self.n_heads
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
        att = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.ff(self.ln2(x))


class TinyLM(nn.Module):
    """Token embeddings `tok_emb` (vocab_size x d_model), learned positions, pre-norm blocks, an LM head."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.max_positions, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size)

    @classmethod
    def from_seed(cls, cfg: ModelConfig, dtype: torch.dtype = torch.float64) -> TinyLM:
        """A model with seeded random weights (rounded to multiples of 1/4096, so every host builds the same)."""
        model = cls(cfg)
        gen = torch.Generator().manual_seed(cfg.seed)
        with torch.no_grad():
            for name, p in model.named_parameters():
                if "ln" in name:
                    w = torch.ones_like(p) if name.endswith("weight") else torch.zeros_like(p)
                else:
                    w = torch.randn(p.shape, generator=gen, dtype=torch.float64) * cfg.init_std
                    if p.dim() == 2 and "emb" not in name:
                        w = w / math.sqrt(p.shape[1]) * 4.0
                p.copy_(torch.round(w * 4096) / 4096)
        return model.to(dtype).eval()

    @property
    def embedding_weight(self) -> torch.Tensor:
        """The token embedding matrix, shape (vocab_size, d_model)."""
        return self.tok_emb.weight

    def embed(self, ids: torch.Tensor) -> torch.Tensor:
        """Token embeddings of `ids` (any shape) -> (*ids.shape, d_model); positions are added in `forward`."""
        return self.tok_emb(ids)

    def forward(self, input_ids: torch.Tensor | None = None, inputs_embeds: torch.Tensor | None = None
                ) -> torch.Tensor:
        """Next-token logits at every position.

        Args:
            input_ids: (batch, seq) token ids, or
            inputs_embeds: (batch, seq, d_model) input embeddings (exactly one of the two).
        Returns:
            (batch, seq, vocab_size) logits; logits[:, t] predict the token at position t + 1.
        """
        if (input_ids is None) == (inputs_embeds is None):
            raise ValueError("give exactly one of input_ids and inputs_embeds")
        x = self.embed(input_ids) if inputs_embeds is None else inputs_embeds
        t = x.shape[1]
        if t > self.cfg.max_positions:
            raise ValueError(f"sequence of {t} positions exceeds max_positions={self.cfg.max_positions}")
        x = x + self.pos_emb(torch.arange(t, device=x.device))
        for block in self.blocks:
            x = block(x)
        return self.lm_head(self.ln_f(x))
