"""Implicit long filters: h_t = FFN(PositionalFeatures(t)) * Window(t).

The filter of every channel is as long as the sequence, but its number of parameters does not grow
with the length: it is the output of a small network evaluated at each position.
"""

import math

import torch
from torch import Tensor, nn


class Sin(nn.Module):
    """sin(w * x) with a learnable per-feature frequency w."""

    def __init__(self, dim: int, frequency: float = 1.0):
        super().__init__()
        self.freq = nn.Parameter(frequency * torch.ones(1, dim))

    def forward(self, x: Tensor) -> Tensor:
        return torch.sin(self.freq * x)


class PositionalFeatures(nn.Module):
    """Features of the normalised position t / l_max: [t, cos(2 pi k t), sin(2 pi k t) for k = 1..K]."""

    def __init__(self, emb_dim: int, l_max: int):
        super().__init__()
        if emb_dim < 3 or emb_dim % 2 == 0:
            raise ValueError("emb_dim must be odd and >= 3")
        self.l_max = l_max
        self.register_buffer("bands", torch.arange(1, (emb_dim - 1) // 2 + 1, dtype=torch.float32))

    def forward(self, seq_len: int) -> Tensor:
        t = torch.arange(seq_len, dtype=self.bands.dtype, device=self.bands.device)[:, None] / self.l_max
        angle = 2 * math.pi * t * self.bands
        return torch.cat([t, torch.cos(angle), torch.sin(angle)], dim=-1)  # (L, emb_dim)


class ExponentialWindow(nn.Module):
    """Multiplies channel c of a filter by exp(-alpha_c * t / l_max): every channel forgets at its own rate."""

    def __init__(self, channels: int, l_max: int, fast_decay_pct: float, slow_decay_pct: float, target: float):
        super().__init__()
        self.l_max = l_max
        max_decay = math.log(target) / fast_decay_pct
        min_decay = math.log(target) / slow_decay_pct
        self.register_buffer("deltas", torch.linspace(min_decay, max_decay, channels).abs())

    def forward(self, h: Tensor) -> Tensor:
        # h: (L, channels)
        t = torch.arange(h.shape[0], dtype=h.dtype, device=h.device)[:, None] / self.l_max
        return h * torch.exp(-t * self.deltas.to(h.dtype))


class HyenaFilter(nn.Module):
    """Generates the N long filters of an order-N Hyena operator and their skip biases.

    ``forward(seq_len)`` returns ``(h, bias)`` with ``h`` of shape (order, d_model, seq_len), the
    filter of step n being ``h[n]`` (one filter per channel), and ``bias`` of shape (order, d_model).
    """

    def __init__(
        self,
        d_model: int,
        order: int,
        l_max: int,
        filter_order: int = 32,
        emb_dim: int = 5,
        frequency: float = 1.0,
        fast_decay_pct: float = 0.3,
        slow_decay_pct: float = 1.5,
        target: float = 1e-2,
    ):
        super().__init__()
        self.d_model, self.order = d_model, order
        self.features = PositionalFeatures(emb_dim, l_max)
        self.ffn = nn.Sequential(
            nn.Linear(emb_dim, filter_order),
            Sin(filter_order, frequency),
            nn.Linear(filter_order, filter_order),
            Sin(filter_order, frequency),
            nn.Linear(filter_order, order * d_model, bias=False),
        )
        self.window = ExponentialWindow(order * d_model, l_max, fast_decay_pct, slow_decay_pct, target)
        self.bias = nn.Parameter(torch.randn(order, d_model))

    def forward(self, seq_len: int) -> tuple[Tensor, Tensor]:
        features = self.features(seq_len).to(self.bias.dtype)
        h = self.window(self.ffn(features))  # (L, order * d_model)
        h = h.transpose(0, 1).reshape(self.order, self.d_model, seq_len)
        return h, self.bias
