"""Forecast metrics on fresh windows of the synthetic series."""

from __future__ import annotations

import torch
import torch.nn as nn

from timedistill.data import windows
from timedistill.layers.multiscale import multi_scale_downsample


@torch.no_grad()
def evaluate(model: nn.Module, series: torch.Tensor, marks: torch.Tensor, lookback: int, horizon: int,
             use_marks: bool = False, n_batches: int = 4, seed: int = 99, num_scales: int = 2,
             window: int = 2) -> dict[str, float]:
    """MSE and MAE of the forecasts, and the MSE of the coarsest pyramid level (how well the trend is caught)."""
    gen = torch.Generator().manual_seed(seed)
    mse = mae = coarse = 0.0
    for _ in range(n_batches):
        x, y, x_mark, _ = windows(series, marks, lookback, horizon, 32, gen)
        pred, _ = model(x, x_mark) if use_marks else model(x)
        mse += float((pred - y).pow(2).mean())
        mae += float((pred - y).abs().mean())
        pred_levels, _ = multi_scale_downsample(pred, num_scales, window)
        y_levels, _ = multi_scale_downsample(y, num_scales, window)
        coarse += float((pred_levels[-1] - y_levels[-1]).pow(2).mean())
    return {"mse": mse / n_batches, "mae": mae / n_batches, "coarse_mse": coarse / n_batches}
