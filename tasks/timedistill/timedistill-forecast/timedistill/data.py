"""Synthetic multivariate series with daily and weekly seasonality, plus calendar features (time marks)."""

from __future__ import annotations

import math

import torch


def make_series(n_steps: int, n_channels: int, generator: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Hourly series ``(n_steps, n_channels)`` and time marks ``(n_steps, 2)`` (hour of day, day of week in [-0.5, 0.5])."""
    t = torch.arange(n_steps, dtype=torch.float32)
    phase = torch.rand(n_channels, generator=generator) * 2 * math.pi
    amp = 0.5 + torch.rand(n_channels, generator=generator)
    daily = torch.sin(2 * math.pi * t[:, None] / 24 + phase)
    weekly = 0.5 * torch.sin(2 * math.pi * t[:, None] / 168 + 2 * phase)
    trend = 0.001 * t[:, None] * torch.randn(n_channels, generator=generator)
    noise = 0.1 * torch.randn(n_steps, n_channels, generator=generator)
    series = amp * (daily + weekly) + trend + noise
    marks = torch.stack([(t % 24) / 23 - 0.5, ((t // 24) % 7) / 6 - 0.5], dim=-1)
    return series, marks


def windows(series: torch.Tensor, marks: torch.Tensor, lookback: int, horizon: int, batch_size: int,
            generator: torch.Generator):
    """A random batch: ``x (B, lookback, C)``, ``y (B, horizon, C)``, ``x_mark``, ``y_mark``."""
    starts = torch.randint(0, series.shape[0] - lookback - horizon, (batch_size,), generator=generator).tolist()
    x = torch.stack([series[s : s + lookback] for s in starts])
    y = torch.stack([series[s + lookback : s + lookback + horizon] for s in starts])
    x_mark = torch.stack([marks[s : s + lookback] for s in starts])
    y_mark = torch.stack([marks[s + lookback : s + lookback + horizon] for s in starts])
    return x, y, x_mark, y_mark
