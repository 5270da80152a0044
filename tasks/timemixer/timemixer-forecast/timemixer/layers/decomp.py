"""Season/trend decomposition by a moving average along time."""

import torch
from torch import nn


class MovingAverage(nn.Module):
    """Moving average over time with edge replication, so the output keeps the input length."""

    def __init__(self, kernel_size: int):
        super().__init__()
        if kernel_size % 2 != 1:
            raise ValueError("moving-average kernel size must be odd")
        self.kernel_size = kernel_size
        self.pool = nn.AvgPool1d(kernel_size=kernel_size, stride=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # x: (B, T, D)
        pad = (self.kernel_size - 1) // 2
        front = x[:, :1, :].expand(-1, pad, -1)
        back = x[:, -1:, :].expand(-1, pad, -1)
        padded = torch.cat([front, x, back], dim=1)
        return self.pool(padded.transpose(1, 2)).transpose(1, 2)


class SeriesDecomposition(nn.Module):
    """x = season + trend, the trend being the moving average of x."""

    def __init__(self, kernel_size: int):
        super().__init__()
        self.moving_avg = MovingAverage(kernel_size)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        trend = self.moving_avg(x)
        return x - trend, trend
