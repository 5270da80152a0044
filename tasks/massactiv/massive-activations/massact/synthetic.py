"""Random hidden states with massive activations planted at known coordinates."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Plant:
    layers: tuple[int, ...]
    tokens: tuple[int, ...]
    dims: tuple[int, ...]
    value: float


def planted_hidden_states(num_layers: int, batch: int, seq_len: int, dim: int, plants: list[Plant],
                          scale: float = 1.0, seed: int = 0, dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    """Gaussian hidden states (scale `scale`) of shape (batch, seq_len, dim) per layer, with every
    (layer, token, dim) combination of each plant set to its value in every sequence of the batch."""
    g = torch.Generator().manual_seed(seed)
    states = [torch.randn(batch, seq_len, dim, generator=g, dtype=torch.float64).mul(scale) for _ in range(num_layers)]
    for p in plants:
        for layer in p.layers:
            for tok in p.tokens:
                states[layer][:, tok, list(p.dims)] = p.value
    return [s.to(dtype) for s in states]
