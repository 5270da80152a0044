"""Synthetic character-level corpus: a small stochastic grammar over a 20-symbol alphabet."""

from __future__ import annotations

import torch


def make_corpus(n_tokens: int, vocab_size: int, generator: torch.Generator) -> torch.Tensor:
    # A sparse random Markov chain: every symbol has 3 likely successors.
    succ = torch.randint(0, vocab_size, (vocab_size, 3), generator=generator)
    out = torch.empty(n_tokens, dtype=torch.long)
    cur = 0
    choices = torch.randint(0, 3, (n_tokens,), generator=generator)
    noise = torch.rand(n_tokens, generator=generator) < 0.1
    rand_tok = torch.randint(0, vocab_size, (n_tokens,), generator=generator)
    for i in range(n_tokens):
        cur = int(rand_tok[i]) if noise[i] else int(succ[cur, choices[i]])
        out[i] = cur
    return out


def get_batch(corpus: torch.Tensor, batch_size: int, block_size: int, generator: torch.Generator):
    idx = torch.randint(0, corpus.numel() - block_size - 1, (batch_size,), generator=generator)
    x = torch.stack([corpus[i : i + block_size] for i in idx.tolist()])
    y = torch.stack([corpus[i + 1 : i + block_size + 1] for i in idx.tolist()])
    return x, y
