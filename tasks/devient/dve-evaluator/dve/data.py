"""Synthetic defeasible-visual-entailment data.

A *group* is an (image premise, hypothesis) pair with several textual updates; each update either
strengthens or weakens the hypothesis. Images are random feature vectors (standing in for the
output of a frozen vision encoder) and texts are short token-id sequences. A hidden direction makes
the update type learnable: strengthener tokens are drawn from one half of the vocabulary and
weakener tokens from the other, with some overlap noise.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List

import torch

from .losses import STRENGTHENER, WEAKENER

PAD_ID = 0


@dataclass
class Group:
    image: torch.Tensor          # (image_dim,)
    hypothesis: torch.Tensor     # (Lh,) token ids
    updates: List[torch.Tensor]  # each (Lu,) token ids
    labels: List[int]            # WEAKENER or STRENGTHENER per update


def random_group(g: torch.Generator, image_dim: int = 16, vocab: int = 50, per_type: int = 2) -> Group:
    image = torch.randn(image_dim, generator=g)
    hypothesis = torch.randint(1, vocab, (5,), generator=g)
    half = vocab // 2
    updates, labels = [], []
    for label in [STRENGTHENER] * per_type + [WEAKENER] * per_type:
        lo, hi = (1, half) if label == STRENGTHENER else (half, vocab)
        tokens = torch.randint(lo, hi, (4,), generator=g)
        noise = torch.rand(4, generator=g) < 0.25
        tokens = torch.where(noise, torch.randint(1, vocab, (4,), generator=g), tokens)
        updates.append(tokens)
        labels.append(label)
    return Group(image, hypothesis, updates, labels)


def make_batch(groups: List[Group]):
    """Flatten groups into items and build the strengthener/weakener pairs.

    Returns ``images (N, D)``, ``hypotheses (N, Lh)``, ``updates (N, Lu)``, ``labels (N,)`` and
    ``pairs (P, 2)``: every (strengthener, weakener) combination inside each group.
    """
    images, hyps, upds, labels, pairs = [], [], [], [], []
    for grp in groups:
        start = len(labels)
        for upd, lab in zip(grp.updates, grp.labels):
            images.append(grp.image)
            hyps.append(grp.hypothesis)
            upds.append(upd)
            labels.append(lab)
        idx = range(start, len(labels))
        strong = [i for i in idx if labels[i] == STRENGTHENER]
        weak = [i for i in idx if labels[i] == WEAKENER]
        pairs.extend((i, j) for i in strong for j in weak)
    pad = lambda seqs: torch.nn.utils.rnn.pad_sequence(seqs, batch_first=True, padding_value=PAD_ID)
    pair_tensor = torch.tensor(pairs, dtype=torch.long).reshape(-1, 2)
    return torch.stack(images), pad(hyps), pad(upds), torch.tensor(labels, dtype=torch.long), pair_tensor


def random_groups(num: int, seed: int = 0) -> List[Group]:
    g = torch.Generator().manual_seed(seed)
    return [random_group(g, per_type=int(torch.randint(1, 3, (1,), generator=g))) for _ in range(num)]
