"""Edits of detected massive activations, used for ablations."""
from __future__ import annotations

from typing import Iterable, Sequence

import torch

from massact.detect import MassiveActivation


def edit_for(records: Iterable[MassiveActivation], mode: str = "zero",
             reference: Sequence[torch.Tensor] | None = None):
    """Build an `edit(layer, hidden)` function for `TinyLM.forward` that overwrites the detected
    entries with 0 (`mode="zero"`) or with their mean over the batch of `reference` hidden states
    (`mode="mean"`)."""
    by_layer: dict[int, list[MassiveActivation]] = {}
    for r in records:
        by_layer.setdefault(r.layer, []).append(r)
    if mode not in {"zero", "mean"}:
        raise ValueError(f"unknown mode {mode!r}")
    if mode == "mean" and reference is None:
        raise ValueError("mode='mean' needs reference hidden states")

    def edit(layer: int, hidden: torch.Tensor) -> torch.Tensor:
        if layer not in by_layer:
            return hidden
        hidden = hidden.clone()
        for r in by_layer[layer]:
            if mode == "zero":
                hidden[r.batch, r.token, r.dim] = 0.0
            else:
                hidden[r.batch, r.token, r.dim] = reference[layer][:, r.token, r.dim].mean()
        return hidden

    return edit
