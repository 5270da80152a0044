"""Reversible instance normalisation: normalise each series by its own look-back statistics."""

from __future__ import annotations

import torch
import torch.nn as nn


class RevIN(nn.Module):
    def __init__(self, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self._mean: torch.Tensor | None = None
        self._std: torch.Tensor | None = None

    def normalize(self, x: torch.Tensor) -> torch.Tensor:
        """``x (batch, T, channels)``; statistics over time, remembered for ``denormalize``."""
        self._mean = x.mean(dim=1, keepdim=True).detach()
        self._std = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()
        return (x - self._mean) / self._std

    def denormalize(self, y: torch.Tensor) -> torch.Tensor:
        assert self._mean is not None and self._std is not None, "call normalize first"
        return y * self._std + self._mean
