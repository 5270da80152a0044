"""Tensor helpers used by the SAE and the metrics."""
from __future__ import annotations

import torch


def reconstruction_error(x: torch.Tensor, x_hat: torch.Tensor) -> torch.Tensor:
    """0-dim tensor: the squared L2 error ||x - x_hat||^2 of each row (token), averaged over the rows."""
    return (x - x_hat).pow(2).sum(dim=-1).mean()


def topk_per_row(values: torch.Tensor, k: int) -> torch.Tensor:
    """Keep the k largest entries of each row of a (rows, cols) tensor (all of them if cols <= k), zero the rest."""
    if values.shape[-1] <= k:
        return values
    top = values.topk(k, dim=-1)
    return torch.zeros_like(values).scatter(-1, top.indices, top.values)

