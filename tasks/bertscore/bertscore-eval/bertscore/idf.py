"""Inverse document frequency weights over a reference corpus."""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from bertscore.tokenizer import SPECIAL_IDS


def compute_idf(
    references: Sequence[Sequence[int]],
    vocab_size: int,
    special_ids: Sequence[int] = SPECIAL_IDS,
) -> torch.Tensor:
    """idf(w) = log((M + 1) / (df(w) + 1)) for M reference sentences, as a ``[vocab_size]`` float64 tensor.

    ``df(w)`` counts the references that contain ``w`` at least once. The plus-one smoothing gives words
    never seen in the references the largest weight, log(M + 1). Special tokens get weight 0.
    """
    num_docs = len(references)
    df = torch.zeros(vocab_size, dtype=torch.float64)
    for ref in references:
        for w in set(ref):
            df[w] += 1
    idf = torch.log(torch.tensor(num_docs + 1.0, dtype=torch.float64) / (df + 1.0))
    idf[list(special_ids)] = 0.0
    return idf


def uniform_weights(vocab_size: int) -> torch.Tensor:
    """All-ones weights: BERTScore without importance weighting."""
    return torch.ones(vocab_size, dtype=torch.float64)


def max_idf(num_docs: int) -> float:
    """The weight of a word absent from all ``num_docs`` references."""
    return math.log(num_docs + 1.0)
