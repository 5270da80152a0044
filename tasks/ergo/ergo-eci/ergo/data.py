"""Synthetic documents with event mentions and sparse causal links between them.

A document is a sequence of token ids with ``num_events`` marked event spans. Every unordered pair
of events is a candidate; only a small fraction are causal, which is the class imbalance that
motivates the focal loss. A hidden rule makes the labels learnable: a pair is causal when the two
events' trigger tokens belong to a "cause" and an "effect" group with the same topic.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List

import torch

PAD_ID = 0


@dataclass
class Document:
    tokens: torch.Tensor        # (L,) token ids
    spans: torch.Tensor         # (E, 2) start (inclusive) and end (exclusive) of each event mention
    pairs: torch.Tensor         # (P, 2) indices of the two events of each candidate pair, i < j
    labels: torch.Tensor        # (P,) 1 = causal, 0 = not causal


def candidate_pairs(num_events: int) -> torch.Tensor:
    i, j = torch.triu_indices(num_events, num_events, offset=1)
    return torch.stack([i, j], dim=1)


def random_document(g: torch.Generator, vocab: int = 60, length: int = 40, num_events: int = 6,
                    topics: int = 4) -> Document:
    tokens = torch.randint(2 * topics + 1, vocab, (length,), generator=g)
    starts = torch.randperm(length // 2, generator=g)[:num_events].sort().values * 2
    spans = torch.stack([starts, starts + 2], dim=1)
    # trigger token: 1..topics are "cause" triggers, topics+1..2*topics are "effect" triggers
    kind = torch.randint(0, 2, (num_events,), generator=g)
    topic = torch.randint(0, topics, (num_events,), generator=g)
    tokens[starts] = 1 + topic + kind * topics
    pairs = candidate_pairs(num_events)
    a, b = pairs[:, 0], pairs[:, 1]
    labels = ((topic[a] == topic[b]) & (kind[a] != kind[b])).long()
    return Document(tokens, spans, pairs, labels)


def collate(docs: List[Document]):
    """Pad a list of documents: tokens (B, L), spans (B, E, 2), pairs (B, P, 2), labels (B, P), pair_mask (B, P)."""
    B = len(docs)
    L = max(len(d.tokens) for d in docs)
    E = max(len(d.spans) for d in docs)
    P = max(len(d.pairs) for d in docs)
    tokens = torch.full((B, L), PAD_ID, dtype=torch.long)
    spans = torch.zeros(B, E, 2, dtype=torch.long)
    pairs = torch.zeros(B, P, 2, dtype=torch.long)
    labels = torch.zeros(B, P, dtype=torch.long)
    pair_mask = torch.zeros(B, P, dtype=torch.bool)
    for k, d in enumerate(docs):
        tokens[k, : len(d.tokens)] = d.tokens
        spans[k, : len(d.spans)] = d.spans
        spans[k, len(d.spans):] = torch.tensor([0, 1])
        pairs[k, : len(d.pairs)] = d.pairs
        labels[k, : len(d.labels)] = d.labels
        pair_mask[k, : len(d.pairs)] = True
    return tokens, spans, pairs, labels, pair_mask


def random_corpus(num_docs: int, seed: int = 0) -> List[Document]:
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(num_docs):
        e = int(torch.randint(4, 8, (1,), generator=g))
        out.append(random_document(g, num_events=e))
    return out
