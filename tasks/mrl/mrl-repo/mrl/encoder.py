"""A tiny MLP encoder (float64) producing d-dimensional representations, and the classifier parameters."""

from __future__ import annotations

import torch

from mrl.config import MRLConfig


class Encoder(torch.nn.Module):
    """x (n, d_in) -> z (n, d): two linear layers with a GELU; weights from a seeded generator."""

    def __init__(self, d_in: int, d: int, seed: int = 0) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.w1 = torch.nn.Parameter(torch.randn(64, d_in, generator=g, dtype=torch.float64) / d_in**0.5)
        self.w2 = torch.nn.Parameter(torch.randn(d, 64, generator=g, dtype=torch.float64) / 8.0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x.to(torch.float64) @ self.w1.T) @ self.w2.T


def classifier_params(cfg: MRLConfig, num_classes: int, seed: int = 1) -> tuple[list[torch.nn.Parameter],
                                                                                 list[torch.nn.Parameter]]:
    """The linear classifiers' parameters (weights, biases), float64, small random values.

    MRL: one weight (num_classes, m) per granularity m. MRL-E: a single weight (num_classes, dims[-1]) in a list of
    one. Biases: one (num_classes,) vector per granularity in both variants.
    """
    g = torch.Generator().manual_seed(seed)
    shapes = [(num_classes, cfg.dims[-1])] if cfg.efficient else [(num_classes, m) for m in cfg.dims]
    weights = [torch.nn.Parameter(torch.randn(*s, generator=g, dtype=torch.float64) * 0.1) for s in shapes]
    biases = [torch.nn.Parameter(torch.zeros(num_classes, dtype=torch.float64)) for _ in cfg.dims]
    return weights, biases
