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
    ids, mask = pad([[BOS_ID, *s.instruction] for s in samples])
    _, hidden = model(ids)
    mask[:, 0] = False
    weights = mask.to(hidden.dtype)
    return (hidden * weights[..., None]).sum(dim=1) / weights.sum(dim=1, keepdim=True)


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
    n = points.shape[0]
    if not 1 <= k <= n:
        raise ValueError(f"k must lie in [1, {n}], got {k}")
    generator = torch.Generator().manual_seed(seed)
    centroids = points[torch.randperm(n, generator=generator)[:k]].clone()
    for _ in range(iters):
        assignment = torch.cdist(points, centroids).argmin(dim=1)
        for c in range(k):
            members = points[assignment == c]
            if len(members):
                centroids[c] = members.mean(dim=0)
    return centroids, torch.cdist(points, centroids).argmin(dim=1)


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
    centroids, assignment = kmeans(embeddings, config.num_clusters, config.kmeans_iters, config.kmeans_seed)
    chosen: list[int] = []
    for c in range(config.num_clusters):
        members = torch.nonzero(assignment == c)[:, 0]
        distances = ((embeddings[members] - centroids[c]) ** 2).sum(dim=1)
        order = torch.sort(distances, stable=True).indices[:config.per_cluster]
        chosen.extend(members[order].tolist())
    return sorted(chosen)


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
    def mean_answer_nll(prefixes: list[list[int]]) -> torch.Tensor:
        ids, mask = pad([[BOS_ID, *p, *s.answer] for p, s in zip(prefixes, samples)])
        logits, _ = model(ids)
        nll = torch.nn.functional.cross_entropy(logits[:, :-1].transpose(1, 2), ids[:, 1:], reduction="none")
        answer = torch.zeros_like(mask[:, 1:])
        for row, (p, s) in enumerate(zip(prefixes, samples)):
            answer[row, len(p):len(p) + len(s.answer)] = True
        weights = answer.to(nll.dtype)
        return (nll * weights).sum(dim=1) / weights.sum(dim=1)

    return mean_answer_nll([s.instruction for s in samples]), mean_answer_nll([[] for _ in samples])


def select_cherry(ifd: torch.Tensor, num_selected: int) -> list[int]:
    """The cherry samples: the `num_selected` samples with the highest IFD among those whose IFD is below 1
    (fewer if fewer qualify).

    Args:
        ifd: float (N,), the IFD score of every sample.
        num_selected: how many to select, >= 0.

    Returns:
        sample indices by descending IFD (ties to the lower index).
    """
    order = torch.sort(ifd, descending=True, stable=True).indices.tolist()
    return [i for i in order if ifd[i] < 1.0][:num_selected]


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
    subset = experience_subset(instruction_embeddings(model, samples), config)
    experienced = brief_training(model, [samples[i] for i in subset], config.experience_steps, config.lr)
    conditioned, direct = answer_scores(experienced, samples)
    ifd = conditioned / direct
    return CherryResult(experience_subset=subset, conditioned=conditioned, direct=direct, ifd=ifd,
                        selected=select_cherry(ifd, config.num_selected), model=experienced)
