"""A tiny causal transformer LM used as the generator (random weights, built in code)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import Tensor, nn


@dataclass(frozen=True)
class LMConfig:
    vocab_size: int = 48
    d_model: int = 24
    n_heads: int = 3
    n_layers: int = 2
    max_len: int = 64
    logit_scale: float = 3.0  # sharpens the random model so that context actually matters


class DecoderBlock(nn.Module):
    def __init__(self, cfg: LMConfig) -> None:
        super().__init__()
        self.n_heads = cfg.n_heads
        self.norm1 = nn.LayerNorm(cfg.d_model)
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.out = nn.Linear(cfg.d_model, cfg.d_model)
        self.norm2 = nn.LayerNorm(cfg.d_model)
        self.ff = nn.Sequential(
            nn.Linear(cfg.d_model, 2 * cfg.d_model), nn.Tanh(), nn.Linear(2 * cfg.d_model, cfg.d_model)
        )

    def forward(self, x: Tensor) -> Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.n_heads)
        future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        attn = scores.masked_fill(future, float("-inf")).softmax(dim=-1)
        x = x + self.out((attn @ v).transpose(1, 2).reshape(b, t, d))
        return x + self.ff(self.norm2(x))


class TinyCausalLM(nn.Module):
    def __init__(self, cfg: LMConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(DecoderBlock(cfg) for _ in range(cfg.n_layers))
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        nn.init.normal_(self.pos.weight, std=0.1)  # keep positions from drowning out the tokens

    def forward(self, input_ids: Tensor) -> Tensor:
        """Logits of shape (batch, seq, vocab) for every position of ``input_ids`` (batch, seq)."""
        t = input_ids.shape[1]
        if t > self.cfg.max_len:
            raise ValueError(f"sequence of length {t} is longer than max_len={self.cfg.max_len}")
        x = self.embed(input_ids) + self.pos(torch.arange(t, device=input_ids.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x)) * self.cfg.logit_scale

    @torch.no_grad()
    def next_token_logits(self, input_ids: Tensor) -> Tensor:
        """Logits for the token that follows each sequence: (batch, vocab)."""
        return self(input_ids)[:, -1]


def build_model(seed: int = 0, cfg: LMConfig | None = None) -> TinyCausalLM:
    """Random weights from a fixed seed, float64, in eval mode."""
    state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        model = TinyCausalLM(cfg or LMConfig())
    finally:
        torch.random.set_rng_state(state)
    return model.double().eval()
