"""A tiny decoder-only transformer whose every layer can emit next-token logits.

Layer numbering follows the usual "hidden states" convention:

* layer 0 is the output of the embedding (token + position),
* layer j (1 <= j <= n_layers) is the output of transformer block j,
* the *mature* (final) layer is ``n_layers``.

Early exit applies the same final layer norm and the same LM head to any layer's hidden
state, so every layer yields a distribution over the vocabulary (this is how DoLa reads
"premature" layers without training extra heads).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import torch
from torch import Tensor, nn


@dataclass(frozen=True)
class TinyLMConfig:
    vocab_size: int = 40
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 6
    max_len: int = 64
    init_std: float = 0.5  # large on purpose: random layers then disagree visibly


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: TinyLMConfig) -> None:
        super().__init__()
        self.n_heads = cfg.n_heads
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)

    def forward(self, x: Tensor) -> Tensor:
        b, t, d = x.shape
        h = self.n_heads
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (z.view(b, t, h, d // h).transpose(1, 2) for z in (q, k, v))
        att = q @ k.transpose(-2, -1) / math.sqrt(d // h)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        att = att.masked_fill(~causal, float("-inf")).softmax(dim=-1)
        out = (att @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(out)


class Block(nn.Module):
    def __init__(self, cfg: TinyLMConfig) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(), nn.Linear(4 * cfg.d_model, cfg.d_model)
        )

    def forward(self, x: Tensor) -> Tensor:
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class EarlyExitLM(nn.Module):
    """Pre-LN transformer LM with a shared early-exit head on every layer."""

    def __init__(self, cfg: TinyLMConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.max_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.ln_f = nn.LayerNorm(cfg.d_model)
        self.lm_head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        self.reset_parameters()

    @property
    def mature_layer(self) -> int:
        return self.cfg.n_layers

    def reset_parameters(self) -> None:
        for name, p in self.named_parameters():
            if p.dim() >= 2:
                nn.init.normal_(p, std=self.cfg.init_std / math.sqrt(p.shape[-1]) * (4.0 if "lm_head" in name else 1.0))
            elif name.endswith("bias"):
                nn.init.zeros_(p)
        nn.init.normal_(self.tok_emb.weight, std=1.0)
        nn.init.normal_(self.pos_emb.weight, std=0.3)

    def hidden_states(self, input_ids: Tensor) -> list[Tensor]:
        """Hidden states of layers 0..n_layers, each of shape (batch, seq, d_model)."""
        t = input_ids.shape[1]
        if t > self.cfg.max_len:
            raise ValueError(f"sequence length {t} exceeds max_len {self.cfg.max_len}")
        pos = torch.arange(t, device=input_ids.device)
        x = self.tok_emb(input_ids) + self.pos_emb(pos)
        states = [x]
        for block in self.blocks:
            x = block(x)
            states.append(x)
        return states

    def early_exit_logits(self, input_ids: Tensor, layers: Sequence[int]) -> dict[int, Tensor]:
        """Next-token logits read out of each requested layer: {layer: (batch, seq, vocab)}."""
        states = self.hidden_states(input_ids)
        out: dict[int, Tensor] = {}
        for layer in layers:
            if not 0 <= layer <= self.cfg.n_layers:
                raise ValueError(f"layer {layer} outside 0..{self.cfg.n_layers}")
            out[layer] = self.lm_head(self.ln_f(states[layer]))
        return out

    def forward(self, input_ids: Tensor) -> Tensor:
        """Ordinary forward pass: logits of the mature layer, (batch, seq, vocab)."""
        return self.early_exit_logits(input_ids, [self.mature_layer])[self.mature_layer]


def build_model(seed: int = 0, cfg: TinyLMConfig | None = None, dtype: torch.dtype = torch.float64) -> EarlyExitLM:
    """A randomly initialised model; the same seed always gives the same weights."""
    gen_state = torch.random.get_rng_state()
    try:
        torch.manual_seed(seed)
        model = EarlyExitLM(cfg or TinyLMConfig())
    finally:
        torch.random.set_rng_state(gen_state)
    return model.to(dtype).eval()
