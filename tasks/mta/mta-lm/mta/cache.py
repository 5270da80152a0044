"""Cache for incremental decoding."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class LayerCache:
    """What one attention layer keeps between calls, in the layer's own (B, n_heads, time, head_dim) layout.

    `keys` and `values` hold every position the layer has seen (after rotary embeddings for the keys), appended
    along the time axis -2 by `append`. `queries` is free for the layer to keep the most recent queries it needs
    again in a later call (None until the layer stores some).
    """

    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None
    queries: torch.Tensor | None = None

    @property
    def length(self) -> int:
        """Number of positions stored."""
        return 0 if self.keys is None else self.keys.shape[-2]

    def append(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store new positions after the old ones; return all keys and values stored so far."""
        if self.keys is None or self.values is None:
            self.keys, self.values = keys, values
        else:
            self.keys = torch.cat([self.keys, keys], dim=-2)
            self.values = torch.cat([self.values, values], dim=-2)
        return self.keys, self.values


@dataclass
class KVCache:
    """One `LayerCache` per layer of a model."""

    layers: list[LayerCache] = field(default_factory=list)

    @classmethod
    def empty(cls, n_layers: int) -> KVCache:
        return cls([LayerCache() for _ in range(n_layers)])

    @property
    def length(self) -> int:
        """Number of tokens the model has consumed through this cache."""
        return self.layers[0].length if self.layers else 0
