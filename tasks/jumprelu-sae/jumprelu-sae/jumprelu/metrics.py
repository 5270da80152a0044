"""Evaluation metrics of an SAE on a batch of activations."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Metrics:
    """Sparsity and fidelity of an SAE on one batch."""

    l0: float  # mean number of non-zero features per activation
    fvu: float  # fraction of variance unexplained: sum ||x - x_hat||^2 / sum ||x - mean(x)||^2
    dead_fraction: float  # fraction of features that are zero on every activation of the batch


def metrics(x: torch.Tensor, reconstruction: torch.Tensor, features: torch.Tensor) -> Metrics:
    """Metrics of one batch: x and reconstruction (B, d_model), features (B, d_sae)."""
    active = features != 0
    residual = (x - reconstruction).pow(2).sum()
    variance = (x - x.mean(dim=0, keepdim=True)).pow(2).sum()
    return Metrics(l0=float(active.sum(dim=-1).double().mean()), fvu=float(residual / variance),
                   dead_fraction=float((~active.any(dim=0)).double().mean()))
