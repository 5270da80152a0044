"""A tiny associative language model (float64) standing in for GPT-3.

The logits of the next token are a bias vector plus the sum, over the context's tokens, of each token's row of an
association matrix, weighted by `decay` raised to the token's distance from the end (recent tokens weigh more).
Planted associations make it a weak sentiment classifier, and its label words in the context pull towards
themselves: it shows the majority-label, recency and common-token biases of Section 4 of the paper.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from calib.data import NEGATIVE, POSITIVE
from calib.tokenizer import Tokenizer


class TinyLM:
    """logits(ids) = bias + sum_i decay**(len(ids) - 1 - i) * assoc[ids[i]]. Weights are rounded to multiples of
    1/64 and every sum is in float64, so every host computes the same values."""

    def __init__(self, vocab_size: int, seed: int = 0, decay: float = 0.8,
                 associations: Mapping[tuple[int, int], float] | None = None,
                 bias: Mapping[int, float] | None = None) -> None:
        g = torch.Generator().manual_seed(seed)
        self.assoc = torch.round(torch.randn(vocab_size, vocab_size, generator=g, dtype=torch.float64) * 0.3 * 64) / 64
        self.bias = torch.round(torch.randn(vocab_size, generator=g, dtype=torch.float64) * 0.5 * 64) / 64
        for (src, dst), value in (associations or {}).items():
            self.assoc[src, dst] += value
        for token, value in (bias or {}).items():
            self.bias[token] += value
        self.decay = decay

    def logits(self, ids: Sequence[int]) -> torch.Tensor:
        """(vocab,) float64 logits of the token that follows ids."""
        ids_t = torch.tensor(list(ids), dtype=torch.int64)
        weights = self.decay ** torch.arange(len(ids) - 1, -1, -1, dtype=torch.float64)
        return self.bias + (weights[:, None] * self.assoc[ids_t]).sum(dim=0)

    def next_token_logprobs(self, ids: Sequence[int]) -> torch.Tensor:
        """(vocab,) float64 log-probabilities of the token that follows ids."""
        return torch.log_softmax(self.logits(ids), dim=-1)


def sentiment_lm(tokenizer: Tokenizer, seed: int = 0, label_bias: Mapping[str, float] | None = None,
                 decay: float = 0.8) -> TinyLM:
    """A TinyLM whose polar words point to the matching label word, whose label words point to themselves, and
    whose label words get the extra logit `label_bias[word]` (a common-token bias)."""
    ids = tokenizer.ids
    assoc: dict[tuple[int, int], float] = {}
    for w in POSITIVE:
        assoc[(ids[w], ids["positive"])] = 2.0
    for w in NEGATIVE:
        assoc[(ids[w], ids["negative"])] = 2.0
    for label in ("positive", "negative", "neutral", "yes", "no"):
        assoc[(ids[label], ids[label])] = 1.0
    bias = {ids[w]: v for w, v in (label_bias or {}).items()}
    return TinyLM(len(tokenizer), seed=seed, decay=decay, associations=assoc, bias=bias)
