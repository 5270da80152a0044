"""Matryoshka representation learning (Section 3 of the paper) and its adaptive deployment (Section 4)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from mrl.config import MRLConfig


def matryoshka_logits(z: torch.Tensor, weights: Sequence[torch.Tensor], biases: Sequence[torch.Tensor],
                      cfg: MRLConfig) -> list[torch.Tensor]:
    """The logits of every granularity's linear classifier.

    Args:
        z: (n, cfg.dims[-1]) representations.
        weights, biases: as `mrl.encoder.classifier_params` makes them for cfg.
        cfg: the granularities and the variant.

    Returns:
        One (n, num_classes) tensor per granularity, in the order of cfg.dims.
    """
    out = []
    for i, m in enumerate(cfg.dims):
        w = weights[0][:, :m] if cfg.efficient else weights[i]
        out.append(z[:, :m] @ w.T + biases[i])
    return out


def matryoshka_loss(logits: Sequence[torch.Tensor], labels: torch.Tensor, cfg: MRLConfig) -> torch.Tensor:
    """The Matryoshka training loss for a batch.

    Args:
        logits: the output of `matryoshka_logits`.
        labels: (n,) int64 classes.
        cfg: the importance weights.

    Returns:
        A scalar tensor of the logits' dtype, computed in it throughout (no up- or down-cast); the importance weights
        are applied in that dtype.
    """
    return sum(c * torch.nn.functional.cross_entropy(lg, labels) for c, lg in zip(cfg.weights(), logits))


def adaptive_classify(logits: Sequence[torch.Tensor], thresholds: Sequence[float]) -> tuple[torch.Tensor, torch.Tensor]:
    """Adaptive classification: each example uses the smallest granularity at which the classifier is confident.

    Args:
        logits: one (n, num_classes) tensor per granularity, smallest first.
        thresholds: one confidence threshold per granularity (the last granularity is always used when reached).

    Returns:
        predictions: (n,) int64; granularity: (n,) int64 the index of the granularity each example used.
    """
    n = logits[0].shape[0]
    predictions = torch.empty(n, dtype=torch.int64)
    used = torch.empty(n, dtype=torch.int64)
    done = torch.zeros(n, dtype=torch.bool)
    for i, lg in enumerate(logits):
        conf, pred = torch.softmax(lg, dim=1).max(dim=1)
        take = ~done & ((conf >= thresholds[i]) | (i == len(logits) - 1))
        predictions[take] = pred[take]
        used[take] = i
        done |= take
    return predictions, used


def funnel_retrieval(queries: torch.Tensor, database: torch.Tensor, cascade: Sequence[tuple[int, int]]) -> torch.Tensor:
    """Funnel retrieval: shortlist with a small prefix of the representation, re-rank with larger ones.

    Args:
        queries: (q, d) representations; database: (n, d) representations.
        cascade: (prefix size, shortlist size) per stage; the first stage ranks the whole database, each later
            stage re-ranks the previous shortlist. Similarity: cosine similarity of the prefixes.

    Returns:
        (q, k_last) int64 database indices, most similar first (the lower index first among equal similarities).
    """
    shortlist = torch.arange(database.shape[0]).expand(queries.shape[0], -1)
    for dim, k in cascade:
        q = torch.nn.functional.normalize(queries[:, :dim].to(torch.float64), dim=1)
        db = torch.nn.functional.normalize(database[:, :dim].to(torch.float64), dim=1)
        sims = torch.einsum("qd,qkd->qk", q, db[shortlist])
        order = torch.sort(-sims, dim=1, stable=True).indices[:, :k]
        shortlist = torch.gather(shortlist, 1, order)
    return shortlist
