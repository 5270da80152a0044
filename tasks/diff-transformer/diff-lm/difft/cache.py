"""Key-value cache for incremental decoding."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class LayerCache:
    """The keys and values one attention layer has seen so far, in the layer's own layout.

    `keys` and `values` are None before the first `append`; afterwards they hold every appended step,
    concatenated along dimension `dim` (the time axis of the tensors the layer appends).
    """

    dim: int = -2
    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None

    @property
    def length(self) -> int:
        """Number of time steps stored."""
        return 0 if self.keys is None else self.keys.shape[self.dim]

    def append(self, keys: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Store new steps after the old ones; return all keys and values stored so far."""
        if self.keys is None or self.values is None:
            self.keys, self.values = keys, values
        else:
            self.keys = torch.cat([self.keys, keys], dim=self.dim)
            self.values = torch.cat([self.values, values], dim=self.dim)
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
