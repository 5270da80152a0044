"""The teacher: a small patch-based Transformer (channel independent), trained first and then frozen."""

from __future__ import annotations

import torch
import torch.nn as nn

from timedistill.layers.revin import RevIN


class PatchTransformer(nn.Module):
    """Split each channel's look-back into patches, embed them, run a Transformer encoder, flatten to the horizon.

    ``forward`` returns ``(forecast (batch, horizon, channels), hidden (batch, channels, d_hidden))``.
    """

    def __init__(self, lookback: int, horizon: int, patch_len: int = 8, d_model: int = 32, d_hidden: int = 32,
                 n_layers: int = 1, n_heads: int = 2) -> None:
        super().__init__()
        assert lookback % patch_len == 0
        self.patch_len = patch_len
        n_patches = lookback // patch_len
        self.embed = nn.Linear(patch_len, d_model)
        self.pos = nn.Parameter(torch.zeros(n_patches, d_model))
        layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=2 * d_model, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.to_hidden = nn.Linear(n_patches * d_model, d_hidden)
        self.head = nn.Linear(d_hidden, horizon)
        self.revin = RevIN()

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b, t, c = x.shape
        x = self.revin.normalize(x)
        patches = x.transpose(1, 2).reshape(b * c, t // self.patch_len, self.patch_len)
        z = self.encoder(self.embed(patches) + self.pos)
        hidden = torch.relu(self.to_hidden(z.reshape(b * c, -1))).view(b, c, -1)
        y = self.head(hidden).transpose(1, 2)
        return self.revin.denormalize(y), hidden
