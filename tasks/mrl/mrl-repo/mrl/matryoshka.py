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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


def adaptive_classify(logits: Sequence[torch.Tensor], thresholds: Sequence[float]) -> tuple[torch.Tensor, torch.Tensor]:
    """Adaptive classification: each example uses the smallest granularity at which the classifier is confident.

    Args:
        logits: one (n, num_classes) tensor per granularity, smallest first.
        thresholds: one confidence threshold per granularity (the last granularity is always used when reached).

    Returns:
        predictions: (n,) int64; granularity: (n,) int64 the index of the granularity each example used.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def funnel_retrieval(queries: torch.Tensor, database: torch.Tensor, cascade: Sequence[tuple[int, int]]) -> torch.Tensor:
    """Funnel retrieval: shortlist with a small prefix of the representation, re-rank with larger ones.

    Args:
        queries: (q, d) representations; database: (n, d) representations.
        cascade: (prefix size, shortlist size) per stage; the first stage ranks the whole database, each later
            stage re-ranks the previous shortlist. Similarity: cosine similarity of the prefixes.

    Returns:
        (q, k_last) int64 database indices, most similar first (the lower index first among equal similarities).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
