"""A tiny recurrent language model (float64 by default)."""
from __future__ import annotations

import torch
from torch import nn

from emr.config import ModelConfig


class TinyLM(nn.Module):
    """Embedding, a one-layer GRU and a linear readout.

    forward(input_ids (B, T) int64) -> logits (B, T, V): logits[b, t] are the unnormalised scores of the token at
    position t + 1 given input_ids[b, : t + 1].
    """

    def __init__(self, cfg: ModelConfig | None = None, dtype: torch.dtype = torch.float64) -> None:
        super().__init__()
        cfg = cfg or ModelConfig()
        self.cfg = cfg
        g = torch.Generator().manual_seed(cfg.seed)
        self.embed = nn.Embedding(cfg.vocab_size, cfg.hidden_size, dtype=dtype)
        self.rnn = nn.GRU(cfg.hidden_size, cfg.hidden_size, batch_first=True, dtype=dtype)
        self.head = nn.Linear(cfg.hidden_size, cfg.vocab_size, dtype=dtype)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.randn(p.shape, generator=g, dtype=torch.float64).to(dtype) * 0.5)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.embed(input_ids))
        return self.head(h)
