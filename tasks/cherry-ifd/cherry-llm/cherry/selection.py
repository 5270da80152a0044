"""Self-guided cherry data selection: the pre-experienced model, the IFD score, and the selection."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from cherry.config import CherryConfig
from cherry.data import BOS_ID, Sample, pad
from cherry.model import TinyLM
from cherry.train import brief_training


@dataclass(frozen=True)
class CherryResult:
    """What one selection run produced."""

    experience_subset: list[int]
    """Indices of the samples the pre-experienced model was trained on, ascending. They are chosen by clustering
    the instruction embeddings of the base model (the model passed in)."""
    conditioned: torch.Tensor
    """s_theta(A|Q) of every sample under the pre-experienced model, float64 (N,)."""
    direct: torch.Tensor
    """s_theta(A) of every sample under the pre-experienced model, float64 (N,)."""
    ifd: torch.Tensor
    """IFD_theta(Q, A) of every sample under the pre-experienced model, float64 (N,)."""
    selected: list[int]
    """The cherry samples' indices, as `select_cherry` returns them."""
    model: TinyLM
    """The pre-experienced model."""


@torch.no_grad()
def instruction_embeddings(model: TinyLM, samples: list[Sample]) -> torch.Tensor:
    """Embedding of each sample's instruction: the average of the model's last hidden states over the
    instruction's tokens, the model being run on [BOS] + Q.

    Args:
        model: the language model.
        samples: N samples.

    Returns:
        float64 (N, dim).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def kmeans(points: torch.Tensor, k: int, iters: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Lloyd's k-means.

    The initial centroids are `points[torch.randperm(N, generator=torch.Generator().manual_seed(seed))[:k]]`.
    Each of the `iters` iterations assigns every point to its nearest centroid (squared Euclidean distance, ties
    to the lower cluster index) and then moves every centroid to the mean of its points; a centroid without
    points stays where it is.

    Args:
        points: float (N, D).
        k: number of clusters, 1 <= k <= N.
        iters: number of iterations, >= 0.
        seed: seeds the choice of the initial centroids.

    Returns:
        centroids: (k, D), dtype of `points`, after the last iteration;
        assignment: int64 (N,), each point's nearest centroid among the returned ones (same tie rule).

    Raises:
        ValueError: unless 1 <= k <= N.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def experience_subset(embeddings: torch.Tensor, config: CherryConfig) -> list[int]:
    """The samples on which the pre-experienced model is trained, chosen from the k-means clusters of the
    instruction embeddings (`kmeans` with `config.num_clusters`, `config.kmeans_iters`, `config.kmeans_seed`;
    `config.per_cluster` samples from each cluster).

    Args:
        embeddings: float64 (N, dim), one row per sample.
        config: the run's settings.

    Returns:
        sample indices, ascending, without repeats.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


@torch.no_grad()
def answer_scores(model: TinyLM, samples: list[Sample]) -> tuple[torch.Tensor, torch.Tensor]:
    """The Conditioned Answer Score and the Direct Answer Score of every sample under `model`.

    Args:
        model: the language model; every sequence it reads starts with BOS_ID.
        samples: N samples.

    Returns:
        conditioned: float64 (N,), s_theta(A|Q);
        direct: float64 (N,), s_theta(A).
        Computed in float64 (the model's dtype) throughout (no down-cast).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def select_cherry(ifd: torch.Tensor, num_selected: int) -> list[int]:
    """The cherry samples: the `num_selected` samples with the highest IFD among those whose IFD is below 1
    (fewer if fewer qualify).

    Args:
        ifd: float (N,), the IFD score of every sample.
        num_selected: how many to select, >= 0.

    Returns:
        sample indices by descending IFD (ties to the lower index).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def cherry_pipeline(model: TinyLM, samples: list[Sample], config: CherryConfig) -> CherryResult:
    """The whole self-guided selection (learning from brief experience, evaluating based on experience,
    selecting the cherry data) for `samples`, starting from the base model `model`, which is left unchanged.

    Args:
        model: the base model.
        samples: the whole instruction dataset, N samples.
        config: the run's settings.

    Returns:
        the `CherryResult`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
