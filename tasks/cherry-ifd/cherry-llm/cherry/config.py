"""Settings of one cherry-data selection run."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CherryConfig:
    """Everything a selection run needs; the defaults run in seconds on CPU."""

    num_clusters: int = 4
    """k of the k-means clustering of the instruction embeddings (learning from brief experience)."""
    per_cluster: int = 3
    """Samples taken from each cluster for the pre-experienced model: the `per_cluster` samples nearest to the
    cluster's centroid (squared Euclidean distance; ties to the lower sample index). A cluster with fewer
    members gives all of them."""
    kmeans_iters: int = 10
    """Lloyd iterations of k-means (exactly this many)."""
    kmeans_seed: int = 0
    """Seeds the choice of the initial centroids."""
    experience_steps: int = 5
    """Optimiser steps of the brief training of the pre-experienced model on the sampled subset."""
    lr: float = 1e-2
    """Adam learning rate of that brief training."""
    num_selected: int = 6
    """How many cherry samples to select (fewer if fewer samples qualify)."""
    seed: int = 0
    """Seeds the model's initial weights."""
