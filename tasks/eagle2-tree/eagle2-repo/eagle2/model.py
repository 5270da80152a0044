"""The target language model: a tiny pre-norm transformer (float64) with learned absolute positions, an explicit
attention mask and a key/value cache, so that one forward pass can score a whole draft tree."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch


def rounded(g: torch.Generator, *shape: int, scale: float) -> torch.Tensor:
    """Seeded Gaussian weights rounded to multiples of 1/64 (the same bytes on every host), float64."""
    w = torch.randn(*shape, generator=g, dtype=torch.float64) * scale
    return torch.round(w * 64) / 64


def layer_norm(x: torch.Tensor) -> torch.Tensor:
    """Parameter-free layer norm over the last dimension."""
    return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=1e-6)


def causal_mask(n: int, past: int = 0) -> torch.Tensor:
    """(n, past + n) bool: row i (at cache slot past + i) sees every cached entry and the new entries 0..i."""
    new = torch.ones(n, n, dtype=torch.bool).tril()
    return torch.cat([torch.ones(n, past, dtype=torch.bool), new], dim=1)


@dataclass
class KVCache:
    """Keys and values of the entries the target has processed, one (keys, values) pair per layer, each
    (length, hidden) float64; entry i of every layer belongs to the same token."""

    layers: list[tuple[torch.Tensor, torch.Tensor]] = field(default_factory=list)

    @property
    def length(self) -> int:
        return 0 if not self.layers else int(self.layers[0][0].shape[0])

    @staticmethod
    def empty(n_layers: int, hidden: int) -> "KVCache":
        z = torch.zeros(0, hidden, dtype=torch.float64)
        return KVCache([(z, z) for _ in range(n_layers)])


class Attention(torch.nn.Module):
    """Single-head attention; keys/values of the new rows are appended to the cached ones."""

    def __init__(self, g: torch.Generator, hidden: int) -> None:
        super().__init__()
        s = hidden**-0.5
        self.wq, self.wk, self.wv, self.wo = (torch.nn.Parameter(rounded(g, hidden, hidden, scale=s)) for _ in range(4))

    def forward(self, x: torch.Tensor, mask: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None):
        """x: (n, hidden); mask: (n, P + n) bool (True = may attend) where P is the number of cached entries.
        Returns the output (n, hidden) and the (P + n, hidden) keys and values."""
        q, k, v = x @ self.wq, x @ self.wk, x @ self.wv
        if past is not None:
            k, v = torch.cat([past[0], k], dim=0), torch.cat([past[1], v], dim=0)
        if mask.shape != (x.shape[0], k.shape[0]):
            raise ValueError(f"mask must be {(x.shape[0], k.shape[0])}, got {tuple(mask.shape)}")
        scores = (q @ k.T) / q.shape[-1] ** 0.5
        scores = scores.masked_fill(~mask, float("-inf"))
        return torch.softmax(scores, dim=-1) @ v @ self.wo, (k, v)


class Block(torch.nn.Module):
    def __init__(self, g: torch.Generator, hidden: int) -> None:
        super().__init__()
        self.attn = Attention(g, hidden)
        self.w1 = torch.nn.Parameter(rounded(g, hidden, 2 * hidden, scale=hidden**-0.5))
        self.w2 = torch.nn.Parameter(rounded(g, 2 * hidden, hidden, scale=(2 * hidden) ** -0.5))

    def forward(self, x, mask, past=None):
        a, kv = self.attn(layer_norm(x), mask, past)
        x = x + a
        return x + torch.tanh(layer_norm(x) @ self.w1) @ self.w2, kv


class TargetLM(torch.nn.Module):
    """Embedding + learned positions -> `n_layers` blocks -> final layer norm (the *feature*) -> LM head.

    `calls` counts forward passes."""

    def __init__(self, vocab_size: int = 16, hidden: int = 16, n_layers: int = 2, max_positions: int = 96,
                 seed: int = 0) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.vocab_size, self.hidden, self.n_layers, self.calls = vocab_size, hidden, n_layers, 0
        self.embed = torch.nn.Parameter(rounded(g, vocab_size, hidden, scale=1.0))
        self.pos = torch.nn.Parameter(rounded(g, max_positions, hidden, scale=0.5))
        self.blocks = torch.nn.ModuleList(Block(g, hidden) for _ in range(n_layers))
        self.head = torch.nn.Parameter(rounded(g, vocab_size, hidden, scale=2.5 * hidden**-0.5))
        self.requires_grad_(False)

    def lm_head(self, features: torch.Tensor) -> torch.Tensor:
        """Logits (..., vocab) from features (..., hidden)."""
        return features @ self.head.T

    @torch.no_grad()
    def forward(self, ids: torch.Tensor, position_ids: torch.Tensor, mask: torch.Tensor,
                cache: KVCache | None = None) -> tuple[torch.Tensor, torch.Tensor, KVCache]:
        """ids, position_ids: (n,) int64; mask: (n, P + n) bool, True where row i may attend to cache entry j < P
        or to new row j - P; cache: P cached entries (None = empty).

        Returns logits (n, vocab) and features (n, hidden), float64, and a new KVCache of P + n entries (the
        cached ones, then the n new rows in order). The cache passed in is not modified."""
        self.calls += 1
        if cache is None:
            cache = KVCache.empty(self.n_layers, self.hidden)
        x = self.embed[ids] + self.pos[position_ids]
        layers = []
        for block, past in zip(self.blocks, cache.layers):
            x, kv = block(x, mask, past)
            layers.append(kv)
        features = layer_norm(x)
        return self.lm_head(features), features, KVCache(layers)


def greedy_generate(target: TargetLM, prompt: list[int], max_new_tokens: int) -> list[int]:
    """Plain greedy decoding with the cache: the reference output of lossless speculative decoding (argmax with
    the lowest index on a tie)."""
    ids = torch.tensor(prompt, dtype=torch.int64)
    logits, _, cache = target(ids, torch.arange(len(prompt)), causal_mask(len(prompt)))
    out = [int(torch.argmax(logits[-1]))]
    while len(out) < max_new_tokens:
        n = cache.length
        logits, _, cache = target(torch.tensor([out[-1]]), torch.tensor([n]), causal_mask(1, n), cache)
        out.append(int(torch.argmax(logits[-1])))
    return out
