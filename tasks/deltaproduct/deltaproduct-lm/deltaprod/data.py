"""Synthetic state-tracking data: the word problem of the symmetric group S3.

Each input token is one of the six permutations of three elements; the target at position t is the composition
of the permutations read so far (the state a model has to track). Token ids 0..5 are the permutations in the
order of `PERMUTATIONS`; PAD_ID pads variable-length batches.
"""
from __future__ import annotations

from itertools import permutations

import torch

PERMUTATIONS: list[tuple[int, ...]] = list(permutations(range(3)))
PAD_ID = 6


def compose(a: int, b: int) -> int:
    """Token id of the permutation 'first a, then b'."""
    pa, pb = PERMUTATIONS[a], PERMUTATIONS[b]
    return PERMUTATIONS.index(tuple(pb[pa[i]] for i in range(3)))


def word_problem(batch: int, length: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Random words (batch, length) and their prefix compositions (batch, length)."""
    words = torch.randint(0, len(PERMUTATIONS), (batch, length), generator=generator)
    targets = torch.empty_like(words)
    for b in range(batch):
        acc = int(words[b, 0])
        targets[b, 0] = acc
        for t in range(1, length):
            acc = compose(acc, int(words[b, t]))
            targets[b, t] = acc
    return words, targets


def pad_left(rows: list[torch.Tensor], pad_id: int = PAD_ID) -> tuple[torch.Tensor, torch.Tensor]:
    """Left-pad 1-D id tensors to one length: ids (B, L) and attention_mask (B, L), true at real tokens."""
    length = max(len(r) for r in rows)
    ids = torch.full((len(rows), length), pad_id, dtype=torch.long)
    mask = torch.zeros(len(rows), length, dtype=torch.bool)
    for i, r in enumerate(rows):
        ids[i, length - len(r):] = r
        mask[i, length - len(r):] = True
    return ids, mask


def ragged_batch(batch: int, max_length: int,
                 generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Words of random lengths in [max_length // 2, max_length], left-padded: ids, attention_mask, targets.

    targets is -100 at padding (ignored by the loss).
    """
    words, targets = word_problem(batch, max_length, generator)
    lengths = torch.randint(max(1, max_length // 2), max_length + 1, (batch,), generator=generator)
    ids, mask = pad_left([words[i, : int(n)] for i, n in enumerate(lengths)])
    tgt, _ = pad_left([targets[i, : int(n)] for i, n in enumerate(lengths)], pad_id=-100)
    return ids, mask, tgt
