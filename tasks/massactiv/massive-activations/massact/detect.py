"""Detection of massive activations in per-layer hidden states."""
from __future__ import annotations

import math
from typing import NamedTuple, Optional, Sequence, Union

import torch

# One tensor of shape (batch, seq_len, hidden_dim) per layer, or a stacked (num_layers, batch, seq_len, hidden_dim).
HiddenStates = Union[Sequence[torch.Tensor], torch.Tensor]


class MassiveActivation(NamedTuple):
    layer: int  # index of the layer in `hidden_states`
    batch: int  # index of the sequence in the batch
    token: int  # token position in the sequence
    dim: int  # feature dimension
    value: float  # the (signed) activation
    ratio: float  # |value| divided by the median magnitude of that sequence's hidden state at that layer


def find_massive_activations(
    hidden_states: HiddenStates,
    abs_threshold: float = 100.0,
    ratio_threshold: float = 1000.0,
    attention_mask: Optional[torch.Tensor] = None,
) -> list[MassiveActivation]:
    """Find the massive activations of every layer and every sequence of a batch.

    For layer l and sequence b, let M = the magnitudes |h[l][b, t, d]| over all non-padded token
    positions t and all feature dimensions d, and med = the median of M (for an even number of entries,
    the mean of the two middle values, as `numpy.median`). An entry is a massive activation when

        |h| > abs_threshold   (strictly)   and   |h| >= ratio_threshold * med.

    Args:
        hidden_states: a sequence of tensors of shape (batch, seq_len, hidden_dim), one per layer (for
            example `TinyLM`'s hidden states), or one tensor of shape (num_layers, batch, seq_len,
            hidden_dim). Any floating dtype; all arithmetic is done in float64.
        abs_threshold: absolute magnitude the activation must exceed.
        ratio_threshold: how many times the median magnitude the activation must at least reach.
        attention_mask: optional (batch, seq_len) tensor, 1/True for real tokens and 0/False for padding.
            Padded positions are neither candidates nor part of the median. A sequence without any real
            token contributes nothing.

    Returns:
        A list of `MassiveActivation(layer, batch, token, dim, value, ratio)` sorted by
        (layer, batch, token, dim); indices are Python ints, `value` is the activation itself (with its
        sign) and `ratio` = |value| / med as Python floats (`math.inf` when med is 0). An empty list when
        nothing qualifies.

    Raises:
        ValueError: if a layer's hidden state is not 3-dimensional.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def top_magnitudes(hidden_states: HiddenStates, k: int = 3) -> torch.Tensor:
    """(num_layers, k + 1) table: the k largest magnitudes of each layer (over the whole batch),
    followed by the layer's median magnitude, the quantities plotted per layer when looking for the
    layers where massive activations appear."""
    rows = []
    for h in hidden_states:
        mag = h.detach().to(torch.float64).abs().flatten()
        top = torch.topk(mag, k).values
        rows.append(torch.cat([top, torch.quantile(mag, 0.5).reshape(1)]))
    return torch.stack(rows)


def layer_counts(records: Sequence[MassiveActivation], num_layers: int) -> list[int]:
    """Number of massive activations found in each layer."""
    counts = [0] * num_layers
    for r in records:
        counts[r.layer] += 1
    return counts


def locations(records: Sequence[MassiveActivation]) -> set[tuple[int, int]]:
    """The distinct (token, dim) coordinates that carry massive activations, over all layers and sequences."""
    return {(r.token, r.dim) for r in records}
