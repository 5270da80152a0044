"""Per-layer diagnostics of a trained model: the attention sink, massive activations, gate scores."""
from __future__ import annotations

import torch

from gated.attention import first_token_attention
from gated.model import GatedLM


@torch.no_grad()
def layer_diagnostics(model: GatedLM, tokens: torch.Tensor) -> list[dict[str, float]]:
    """For each layer: mean attention on the first token, largest absolute hidden activation, mean gate score."""
    result = model(tokens)
    rows = []
    for probs, gate, hidden in zip(result.probs, result.gates, result.hidden):
        rows.append({"first_token": float(first_token_attention(probs)),
                     "max_activation": float(hidden.abs().max()),
                     "gate_mean": float(gate.mean()) if gate is not None else float("nan")})
    return rows
