"""Evaluation metrics of an SAE on a set of tokens."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from matryoshka.ops import reconstruction_error


@dataclass(frozen=True)
class Metrics:
    """Sparsity and fidelity of one reconstruction of a set of tokens."""

    mse: float  # mean squared L2 error per token (`reconstruction_error`)
    l0: float  # mean number of non-zero latents per token
    fvu: float  # fraction of variance unexplained: sum ||x - x_hat||^2 / sum ||x - mean(x)||^2
    dead_fraction: float  # fraction of latents that are zero on every token


def metrics(x: torch.Tensor, reconstruction: torch.Tensor, features: torch.Tensor) -> Metrics:
    """Metrics of x and reconstruction (n_tokens, d_model), features (n_tokens, n_latents)."""
    active = features != 0
    residual = (x - reconstruction).pow(2).sum()
    variance = (x - x.mean(dim=0, keepdim=True)).pow(2).sum()
    return Metrics(mse=float(reconstruction_error(x, reconstruction)), l0=float(active.sum(dim=-1).double().mean()),
                   fvu=float(residual / variance),
                   dead_fraction=float((~active.any(dim=0)).double().mean()))


def best_cosine(directions: torch.Tensor, decoder: torch.Tensor) -> torch.Tensor:
    """(n_directions,) the largest cosine similarity of each planted direction with any decoder row."""
    d = directions / directions.norm(dim=-1, keepdim=True)
    w = decoder / decoder.norm(dim=-1, keepdim=True).clamp_min(1e-12)
    return (d.to(w.dtype) @ w.T).max(dim=-1).values
