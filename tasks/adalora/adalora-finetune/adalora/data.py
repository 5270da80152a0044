"""Synthetic sequence-classification data: is token 1 more frequent than token 2?"""

from __future__ import annotations

import torch


def make_batch(
    batch_size: int, max_len: int, vocab_size: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Return ``tokens (B, L)``, ``pad_mask (B, L)`` (True = real token) and ``labels (B,)``."""
    tokens = torch.randint(3, vocab_size, (batch_size, max_len), generator=generator)
    # Sprinkle the two informative tokens.
    special = torch.randint(0, 4, (batch_size, max_len), generator=generator)
    tokens = torch.where(special == 0, torch.ones_like(tokens), tokens)
    tokens = torch.where(special == 1, torch.full_like(tokens, 2), tokens)
    lengths = torch.randint(max_len // 2, max_len + 1, (batch_size,), generator=generator)
    pad_mask = torch.arange(max_len)[None, :] < lengths[:, None]
    tokens = tokens.masked_fill(~pad_mask, 0)
    labels = ((tokens == 1).sum(1) > (tokens == 2).sum(1)).long()
    return tokens, pad_mask, labels
