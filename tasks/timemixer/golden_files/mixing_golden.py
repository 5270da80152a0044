"""Multiscale mixing of the Past-Decomposable-Mixing (PDM) block.

A multiscale representation is a list ``xs`` of ``M + 1`` tensors, finest scale first:
``xs[m]`` has shape ``(batch, T_m, d_model)`` with ``T_m = seq_len // window**m``.
Mixing acts along the time axis only: each temporal layer is applied to every
(batch, channel) series independently, i.e. to the transposed tensor of shape
``(batch, d_model, T_m)``.
"""

import torch
from torch import nn


def scale_lengths(seq_len: int, window: int, num_downsamplings: int) -> list[int]:
    """Lengths T_0 > T_1 > ... > T_M of the scales produced by repeated average pooling."""
    return [seq_len // window**m for m in range(num_downsamplings + 1)]


def temporal_mlp(in_len: int, out_len: int) -> nn.Sequential:
    """Linear(in_len -> out_len) -> GELU -> Linear(out_len -> out_len), acting on the last axis."""
    return nn.Sequential(nn.Linear(in_len, out_len), nn.GELU(), nn.Linear(out_len, out_len))


class MultiScaleSeasonMixing(nn.Module):
    """Bottom-up (fine -> coarse) mixing of the seasonal components.

    ``down_mixing[m]`` maps a series of length ``T_m`` to length ``T_{m+1}``.
    """

    def __init__(self, seq_len: int, window: int, num_downsamplings: int):
        super().__init__()
        self.lengths = scale_lengths(seq_len, window, num_downsamplings)
        self.down_mixing = nn.ModuleList(
            temporal_mlp(self.lengths[m], self.lengths[m + 1]) for m in range(num_downsamplings)
        )

    def forward(self, seasons: list[torch.Tensor]) -> list[torch.Tensor]:
        """Mix seasonal components from the finest scale to the coarsest.

        Args:
            seasons: ``M + 1`` seasonal components, finest first; ``seasons[m]`` has shape
                ``(batch, T_m, d_model)``.

        Returns:
            A new list of ``M + 1`` mixed seasonal components with the same shapes, finest first.
            The finest scale is returned unchanged; every coarser scale receives, as a residual,
            the down-mixing layer applied (along time) to the already-mixed next finer scale.
            The input list and its tensors are not modified.
        """
        mixed = [seasons[0]]
        for m, layer in enumerate(self.down_mixing):
            from_finer = layer(mixed[m].transpose(1, 2)).transpose(1, 2)
            mixed.append(seasons[m + 1] + from_finer)
        return mixed


class MultiScaleTrendMixing(nn.Module):
    """Top-down (coarse -> fine) mixing of the trend components.

    ``up_mixing[m]`` maps a series of length ``T_{m+1}`` to length ``T_m``.
    """

    def __init__(self, seq_len: int, window: int, num_downsamplings: int):
        super().__init__()
        self.lengths = scale_lengths(seq_len, window, num_downsamplings)
        self.up_mixing = nn.ModuleList(
            temporal_mlp(self.lengths[m + 1], self.lengths[m]) for m in range(num_downsamplings)
        )

    def forward(self, trends: list[torch.Tensor]) -> list[torch.Tensor]:
        """Mix trend components from the coarsest scale to the finest.

        Args:
            trends: ``M + 1`` trend components, finest first; ``trends[m]`` has shape
                ``(batch, T_m, d_model)``.

        Returns:
            A new list of ``M + 1`` mixed trend components with the same shapes, finest first
            (the same order as the input). The coarsest scale is returned unchanged; every finer
            scale receives, as a residual, the up-mixing layer applied (along time) to the
            already-mixed next coarser scale. The input list and its tensors are not modified.
        """
        mixed = [trends[-1]]
        for m in range(len(self.up_mixing) - 1, -1, -1):
            from_coarser = self.up_mixing[m](mixed[0].transpose(1, 2)).transpose(1, 2)
            mixed.insert(0, trends[m] + from_coarser)
        return mixed
