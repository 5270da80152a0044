"""Parameter groups: weight decay on matrices only, as is usual for Transformers."""

from __future__ import annotations

from typing import Any

import torch.nn as nn


def decay_groups(model: nn.Module, weight_decay: float) -> list[dict[str, Any]]:
    """Two groups: weights of Linear/Embedding layers (decayed) and biases/LayerNorm gains (not decayed)."""
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        if not p.requires_grad:
            continue
        (decay if p.dim() >= 2 else no_decay).append(p)
    return [
        {"params": decay, "weight_decay": weight_decay},
        {"params": no_decay, "weight_decay": 0.0},
    ]
