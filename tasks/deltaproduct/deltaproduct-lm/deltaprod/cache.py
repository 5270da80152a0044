"""The recurrent state carried between calls (prefill, then one token at a time)."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class RecurrentCache:
    """One recurrent state per layer, filled by the layers themselves.

    states[layer_idx] is a tensor of shape (batch, num_heads, head_k_dim, head_v_dim): the state after every
    token seen so far. seen_tokens counts the positions (padding included) the model has consumed.
    """

    states: dict[int, torch.Tensor] = field(default_factory=dict)
    seen_tokens: int = 0

    def get(self, layer_idx: int) -> torch.Tensor | None:
        """The state stored for `layer_idx`, or None before the first call."""
        return self.states.get(layer_idx)

    def update(self, layer_idx: int, state: torch.Tensor) -> None:
        """Store the state of `layer_idx` after the current call."""
        self.states[layer_idx] = state

    def advance(self, num_tokens: int) -> None:
        """Called once per model forward, after every layer ran."""
        self.seen_tokens += num_tokens

    def reorder(self, index: torch.Tensor) -> None:
        """Keep (or repeat) the batch rows in `index`, e.g. for beam search."""
        for key, state in self.states.items():
            self.states[key] = state.index_select(0, index)
