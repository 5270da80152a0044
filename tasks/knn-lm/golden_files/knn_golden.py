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
    keys, values = [], []
    for seq in sequences:
        if len(seq) < 2:
            continue
        keys.append(model.context_vectors(seq)[:-1])
        values.append(torch.tensor(list(seq[1:]), dtype=torch.int64))
    hidden = model.embed.shape[1]
    if not keys:
        return Datastore(torch.zeros(0, hidden, dtype=torch.float64), torch.zeros(0, dtype=torch.int64),
                         model.vocab_size)
    return Datastore(torch.cat(keys), torch.cat(values), model.vocab_size)


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
    d = ((queries.to(torch.float64)[:, None, :] - store.keys[None, :, :]) ** 2).sum(dim=-1)
    order = torch.sort(d, dim=1, stable=True).indices[:, : min(k, len(store))]
    return torch.gather(d, 1, order), order


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
    weights = torch.softmax(-distances.to(torch.float64) / temperature, dim=1)
    p = torch.zeros(distances.shape[0], vocab_size, dtype=torch.float64)
    return p.scatter_add_(1, values, weights)


def interpolate(p_lm: torch.Tensor, p_knn: torch.Tensor, lam: float) -> torch.Tensor:
    """The kNN-LM distribution from the model's distribution p_lm and the kNN distribution p_knn (same shape)."""
    return lam * p_knn + (1.0 - lam) * p_lm


def sequence_logprobs(model: TinyLM, store: Datastore, sequence: Sequence[int], cfg: KnnConfig) -> torch.Tensor:
    """Log-probabilities of each next token of a sequence under the kNN-LM.

    Returns:
        (len(sequence) - 1,) float64: entry t is log p(sequence[t + 1] | sequence[: t + 1]).
    """
    context = model.context_vectors(sequence)[:-1]
    p_lm = model.logprobs(sequence)[:-1].exp()
    distances, indices = knn_search(store, context, cfg.k)
    p_knn = knn_distribution(distances, store.values[indices], store.vocab_size, cfg.temperature)
    p = interpolate(p_lm, p_knn, cfg.lam)
    targets = torch.tensor(list(sequence[1:]), dtype=torch.int64)
    return torch.log(p.gather(1, targets[:, None]).squeeze(1))
