"""Synthetic multivariate series (seasonal + trend + noise) and sliding-window batches."""

import math

import torch


def synthetic_series(length: int, n_vars: int, seed: int = 0) -> torch.Tensor:
    """A (length, n_vars) series: per-variate sinusoids at two periods, a slow trend and noise."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    periods = torch.randint(6, 24, (2, n_vars), generator=g).float()
    amps = torch.rand(2, n_vars, generator=g) + 0.5
    phase = torch.rand(2, n_vars, generator=g) * 2 * math.pi
    season = sum(amps[i] * torch.sin(2 * math.pi * t / periods[i] + phase[i]) for i in range(2))
    slope = (torch.rand(n_vars, generator=g) - 0.5) * 0.02
    trend = slope * t + 0.5 * torch.sin(2 * math.pi * t / (4 * length))
    noise = 0.1 * torch.randn(length, n_vars, generator=g)
    return season + trend + noise


def sliding_windows(
    series: torch.Tensor, seq_len: int, pred_len: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """All (input, target) windows: inputs (N, seq_len, C), targets (N, pred_len, C)."""
    n = series.shape[0] - seq_len - pred_len + 1
    if n <= 0:
        raise ValueError("series too short for the requested windows")
    xs = torch.stack([series[i : i + seq_len] for i in range(n)])
    ys = torch.stack([series[i + seq_len : i + seq_len + pred_len] for i in range(n)])
    return xs, ys


def train_val_split(series: torch.Tensor, val_fraction: float = 0.2):
    cut = int(series.shape[0] * (1 - val_fraction))
    return series[:cut], series[cut:]
