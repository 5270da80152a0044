"""Base encoder f and projection head g of SimCLR.

The encoder's output h = f(x) is the representation kept for downstream tasks; the contrastive
loss is computed on z = g(h), the output of a small MLP with one hidden ReLU layer.
"""
from __future__ import annotations

import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, channels: int = 3, width: int = 16, feature_dim: int = 32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, feature_dim),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x - 0.5)  # images are in [0, 1]


class ProjectionHead(nn.Module):
    def __init__(self, feature_dim: int = 32, hidden: int = 32, out_dim: int = 16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(feature_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, out_dim)
        )

    def forward(self, h: torch.Tensor) -> torch.Tensor:
        return self.net(h)


class SimCLR(nn.Module):
    def __init__(self, channels: int = 3, feature_dim: int = 32, proj_dim: int = 16):
        super().__init__()
        self.encoder = Encoder(channels, feature_dim=feature_dim)
        self.head = ProjectionHead(feature_dim, feature_dim, proj_dim)

    def forward(self, x: torch.Tensor):
        """Return ``(h, z)``: representations ``(B, feature_dim)`` and projections ``(B, proj_dim)``."""
        h = self.encoder(x)
        return h, self.head(h)
