"""TimeMixer: Past-Decomposable-Mixing blocks and a Future-Multipredictor-Mixing head."""

import torch
from torch import nn

from timemixer.config import TimeMixerConfig
from timemixer.layers.decomp import SeriesDecomposition
from timemixer.layers.embedding import InstanceNorm, TokenEmbedding
from timemixer.layers.mixing import MultiScaleSeasonMixing, MultiScaleTrendMixing


class PastDecomposableMixing(nn.Module):
    """One PDM block: decompose every scale, mix seasons bottom-up and trends top-down, then
    add back a feed-forward of (mixed season + mixed trend) to each scale as a residual."""

    def __init__(self, cfg: TimeMixerConfig):
        super().__init__()
        self.decomp = SeriesDecomposition(cfg.moving_avg)
        self.season_mixing = MultiScaleSeasonMixing(
            cfg.seq_len, cfg.down_sampling_window, cfg.down_sampling_layers
        )
        self.trend_mixing = MultiScaleTrendMixing(
            cfg.seq_len, cfg.down_sampling_window, cfg.down_sampling_layers
        )
        self.feed_forward = nn.Sequential(
            nn.Linear(cfg.d_model, cfg.d_ff),
            nn.GELU(),
            nn.Dropout(cfg.dropout),
            nn.Linear(cfg.d_ff, cfg.d_model),
        )

    def forward(self, xs: list[torch.Tensor]) -> list[torch.Tensor]:
        seasons, trends = [], []
        for x in xs:
            season, trend = self.decomp(x)
            seasons.append(season)
            trends.append(trend)
        seasons = self.season_mixing(seasons)
        trends = self.trend_mixing(trends)
        return [x + self.feed_forward(s + t) for x, s, t in zip(xs, seasons, trends)]


class TimeMixer(nn.Module):
    """Forecaster: (B, seq_len, n_vars) -> (B, pred_len, n_vars). Variates are channel-independent."""

    def __init__(self, cfg: TimeMixerConfig):
        super().__init__()
        self.cfg = cfg
        self.norm = InstanceNorm()
        self.pool = nn.AvgPool1d(cfg.down_sampling_window, stride=cfg.down_sampling_window)
        self.embedding = TokenEmbedding(cfg.d_model)
        self.blocks = nn.ModuleList(PastDecomposableMixing(cfg) for _ in range(cfg.e_layers))
        # Future-Multipredictor-Mixing: one temporal predictor per scale, shared output projection.
        self.predictors = nn.ModuleList(nn.Linear(t, cfg.pred_len) for t in cfg.scale_lengths())
        self.projection = nn.Linear(cfg.d_model, 1)

    def multiscale_inputs(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Average-pool (B, T, C) repeatedly along time: finest first."""
        xs = [x]
        for _ in range(self.cfg.down_sampling_layers):
            xs.append(self.pool(xs[-1].transpose(1, 2)).transpose(1, 2))
        return xs

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, _, n_vars = x.shape
        if self.cfg.use_norm:
            x = self.norm.normalize(x)
        xs = []
        for xm in self.multiscale_inputs(x):
            # channel independence: every variate becomes its own univariate series
            univariate = xm.permute(0, 2, 1).reshape(batch * n_vars, xm.shape[1], 1)
            xs.append(self.embedding(univariate))
        for block in self.blocks:
            xs = block(xs)
        forecast = 0
        for predictor, xm in zip(self.predictors, xs):
            future = predictor(xm.transpose(1, 2)).transpose(1, 2)  # (B*C, pred_len, d_model)
            forecast = forecast + self.projection(future)
        forecast = forecast.reshape(batch, n_vars, self.cfg.pred_len).permute(0, 2, 1)
        if self.cfg.use_norm:
            forecast = self.norm.denormalize(forecast)
        return forecast
