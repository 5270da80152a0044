"""Key/value caches for incremental decoding."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class LayerCache:
    """What one attention layer keeps between calls. `length` counts the positions seen so far; `keys` and `values`
    are written and read only by the layer itself."""
    keys: torch.Tensor | None = None
    values: torch.Tensor | None = None
    length: int = 0


@dataclass
class KVCache:
    layers: list[LayerCache] = field(default_factory=list)

    @classmethod
    def empty(cls, n_layers: int) -> "KVCache":
        return cls([LayerCache() for _ in range(n_layers)])

    @property
    def length(self) -> int:
        return self.layers[0].length if self.layers else 0
