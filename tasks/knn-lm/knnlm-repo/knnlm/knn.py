"""The kNN-LM (Section 2 of the paper): datastore, nearest-neighbour retrieval, the kNN distribution and its
interpolation with the language model."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from knnlm.config import KnnConfig
from knnlm.datastore import Datastore
from knnlm.model import TinyLM


def build_datastore(model: TinyLM, sequences: Sequence[Sequence[int]]) -> Datastore:
    """The datastore of a corpus.

    Args:
        model: the language model whose context vectors are the keys.
        sequences: the corpus, token ids.

    Returns:
        One entry per token that has a successor, sequence by sequence and position by position in order.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def knn_search(store: Datastore, queries: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The k nearest entries of each query.

    Args:
        store: the datastore (at least one entry).
        queries: (m, hidden) query vectors.
        k: the number of neighbours; all entries when the datastore has fewer.

    Returns:
        distances: (m, k') float64 squared Euclidean distances, increasing along each row;
        indices: (m, k') int64 datastore entries (the lower index first among equal distances);
        with k' = min(k, len(store)).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def knn_distribution(distances: torch.Tensor, values: torch.Tensor, vocab_size: int,
                     temperature: float = 1.0) -> torch.Tensor:
    """The kNN distribution over the vocabulary.

    Args:
        distances: (m, k) distances of the neighbours.
        values: (m, k) int64 the neighbours' tokens.
        vocab_size: the vocabulary size.
        temperature: the distances are divided by it.

    Returns:
        (m, vocab_size) float64.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def interpolate(p_lm: torch.Tensor, p_knn: torch.Tensor, lam: float) -> torch.Tensor:
    """The kNN-LM distribution from the model's distribution p_lm and the kNN distribution p_knn (same shape)."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def sequence_logprobs(model: TinyLM, store: Datastore, sequence: Sequence[int], cfg: KnnConfig) -> torch.Tensor:
    """Log-probabilities of each next token of a sequence under the kNN-LM.

    Returns:
        (len(sequence) - 1,) float64: entry t is log p(sequence[t + 1] | sequence[: t + 1]).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
