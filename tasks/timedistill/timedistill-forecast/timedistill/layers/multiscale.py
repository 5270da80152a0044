"""Multi-scale views of a time series: an average-pooling pyramid along the time axis.

Used in two places (see ``paper.md``): the student MLP reads its look-back window at several resolutions, and
the multi-scale distillation loss compares student and teacher forecasts at several resolutions.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def multi_scale_downsample(
    x: torch.Tensor,
    num_scales: int,
    window: int,
    x_mark: torch.Tensor | None = None,
) -> tuple[list[torch.Tensor], list[torch.Tensor] | None]:
    """Build the pyramid ``[x^(0), x^(1), ..., x^(num_scales)]`` of a batch of multivariate series.

    Args:
        x: series of shape ``(batch, T, channels)``; time is dimension 1.
        num_scales: number of downsampling steps ``M`` (``>= 0``); the result has ``M + 1`` levels.
        window: the pooling factor ``delta`` (``>= 1``), used as both kernel size and stride.
        x_mark: optional time features of shape ``(batch, T, n_features)`` aligned with ``x``.

    Returns:
        ``(levels, marks)``. ``levels[0]`` is ``x`` itself; ``levels[m]`` (``m >= 1``) averages
        non-overlapping groups of ``window`` consecutive time steps of ``levels[m - 1]``, separately per batch
        element and channel: ``levels[m][:, j] = mean(levels[m-1][:, j*window : (j+1)*window])``, for
        ``j < T_m = floor(T_{m-1} / window)`` (trailing steps that do not fill a whole window are dropped).
        Shape of ``levels[m]``: ``(batch, T_m, channels)``, same dtype as ``x``.
        ``marks`` is None when ``x_mark`` is None; otherwise ``marks[0]`` is ``x_mark`` and ``marks[m]`` keeps,
        for each pooled step, the features of the first step of its window:
        ``marks[m] = marks[m-1][:, 0 : T_m * window : window]``, shape ``(batch, T_m, n_features)``.

    Raises:
        ValueError: if ``window < 1``, ``num_scales < 0``, or a level would have no time step (``T_m == 0``).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
