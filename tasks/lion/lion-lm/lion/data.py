"""Synthetic language-modelling data: noisy repetitions of short random motifs."""

from __future__ import annotations

import torch


def make_corpus(n_tokens: int, vocab_size: int, generator: torch.Generator, motif_len: int = 5) -> torch.Tensor:
    motifs = torch.randint(0, vocab_size, (8, motif_len), generator=generator)
    picks = torch.randint(0, motifs.shape[0], (n_tokens // motif_len + 1,), generator=generator)
    seq = motifs[picks].reshape(-1)[:n_tokens]
    noise = torch.rand(n_tokens, generator=generator) < 0.05
    return torch.where(noise, torch.randint(0, vocab_size, (n_tokens,), generator=generator), seq)


def get_batch(corpus: torch.Tensor, batch_size: int, block_size: int, generator: torch.Generator):
    starts = torch.randint(0, corpus.numel() - block_size - 1, (batch_size,), generator=generator)
    x = torch.stack([corpus[s : s + block_size] for s in starts.tolist()])
    y = torch.stack([corpus[s + 1 : s + block_size + 1] for s in starts.tolist()])
    return x, y
