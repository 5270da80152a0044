"""Input normalisation and embedding."""

import torch
from torch import nn


class InstanceNorm(nn.Module):
    """Reversible per-series normalisation over the time axis (statistics of the look-back window)."""

    def __init__(self, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self._mean: torch.Tensor | None = None
        self._std: torch.Tensor | None = None

    def normalize(self, x: torch.Tensor) -> torch.Tensor:
        # x: (B, T, C)
        self._mean = x.mean(dim=1, keepdim=True).detach()
        self._std = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
        return (x - self._mean) / self._std

    def denormalize(self, y: torch.Tensor) -> torch.Tensor:
        if self._mean is None or self._std is None:
            raise RuntimeError("denormalize called before normalize")
        return y * self._std + self._mean


class TokenEmbedding(nn.Module):
    """Embeds a univariate series (B, T, 1) into (B, T, d_model) with a circular 1-D convolution."""

    def __init__(self, d_model: int, kernel_size: int = 3):
        super().__init__()
        self.conv = nn.Conv1d(
            1, d_model, kernel_size, padding=kernel_size // 2, padding_mode="circular", bias=False
        )
        nn.init.kaiming_normal_(self.conv.weight, mode="fan_in", nonlinearity="leaky_relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x.transpose(1, 2)).transpose(1, 2)
