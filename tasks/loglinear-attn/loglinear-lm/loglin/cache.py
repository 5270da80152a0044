"""The recurrent state carried between calls (prefill, then one token at a time)."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class LevelCache:
    """The level states of every layer, filled by the layers themselves.

    states[layer_idx] is a tensor of shape (batch, num_heads, num_levels, head_k_dim, head_v_dim): entry l holds
    the level-l state S^(l) (a sum of k v^T outer products, keys along head_k_dim) of the last position seen,
    zero where level l is empty. seen_tokens counts the positions the model has consumed before the current
    call; the model advances it once per forward, after every layer ran.
    """

    states: dict[int, torch.Tensor] = field(default_factory=dict)
    seen_tokens: int = 0

    def get(self, layer_idx: int) -> torch.Tensor | None:
        """The level states stored for `layer_idx`, or None before the first call."""
        return self.states.get(layer_idx)

    def update(self, layer_idx: int, states: torch.Tensor) -> None:
        """Store the level states of `layer_idx` after the current call."""
        self.states[layer_idx] = states

    def advance(self, num_tokens: int) -> None:
        """Called once per model forward, after every layer ran."""
        self.seen_tokens += num_tokens

    def memory(self) -> int:
        """Number of stored state entries (all layers)."""
        return sum(s.numel() for s in self.states.values())
