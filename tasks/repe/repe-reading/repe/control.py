"""Representation control: steer the model by adding a reading vector to its residual stream."""
from __future__ import annotations

import torch


def add_vector(layer: int, direction: torch.Tensor, alpha: float):
    """Edit hook for `TinyCausalLM.forward` that adds alpha * direction to every position of hidden_states[layer]."""
    def edit(l: int, hidden: torch.Tensor) -> torch.Tensor:
        if l != layer:
            return hidden
        return hidden + alpha * direction.to(hidden.dtype)

    return edit
