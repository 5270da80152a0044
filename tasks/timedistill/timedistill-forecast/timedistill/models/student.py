"""The student: a channel-independent MLP that reads the look-back window at several time scales."""

from __future__ import annotations

import torch
import torch.nn as nn

from timedistill.layers.multiscale import multi_scale_downsample
from timedistill.layers.revin import RevIN


class MultiScaleMLP(nn.Module):
    """Each scale of the normalised input is embedded by its own linear map; the embeddings are summed and an
    MLP maps them to the forecast. Channels share weights (channel independence).

    When time marks are given, each scale gets a learned offset from the calendar features of its steps
    (pooled with the series by ``multi_scale_downsample``).

    ``forward`` returns ``(forecast (batch, horizon, channels), hidden (batch, channels, d_hidden))``; the hidden
    representation is what the feature-level distillation compares with the teacher's.
    """

    def __init__(self, lookback: int, horizon: int, d_hidden: int = 32, num_scales: int = 2, window: int = 2,
                 n_mark: int = 0) -> None:
        super().__init__()
        self.num_scales, self.window = num_scales, window
        lengths = [lookback]
        for _ in range(num_scales):
            lengths.append(lengths[-1] // window)
        self.embed = nn.ModuleList(nn.Linear(n, d_hidden) for n in lengths)
        self.mark_offset = nn.ModuleList(nn.Linear(n_mark, 1) for _ in lengths) if n_mark > 0 else None
        self.mlp = nn.Sequential(nn.GELU(), nn.Linear(d_hidden, d_hidden), nn.GELU())
        self.head = nn.Linear(d_hidden, horizon)
        self.revin = RevIN()

    def forward(self, x: torch.Tensor, x_mark: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        x = self.revin.normalize(x)
        use_marks = self.mark_offset is not None and x_mark is not None
        levels, marks = multi_scale_downsample(x, self.num_scales, self.window, x_mark if use_marks else None)
        if marks is not None:
            levels = [level + proj(mark) for level, proj, mark in zip(levels, self.mark_offset, marks)]
        hidden = sum(emb(level.transpose(1, 2)) for emb, level in zip(self.embed, levels))
        hidden = self.mlp(hidden)
        y = self.head(hidden).transpose(1, 2)
        return self.revin.denormalize(y), hidden
