"""Reading and steering TinyLM's internals with forward hooks (keys, hidden states, the edited weight)."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import nn

from alphaedit.model import TinyLM


def rewrite_module(model: TinyLM, layer: int) -> nn.Linear:
    """The edited module of block `layer`: its MLP output projection, weight W of shape (d_model, d_mlp)."""
    if not 0 <= layer < len(model.blocks):
        raise ValueError(f"layer {layer} out of range for a model of {len(model.blocks)} blocks")
    return model.blocks[layer].mlp.w_out


def _gather(x: torch.Tensor, positions: torch.Tensor | None) -> torch.Tensor:
    """(batch, seq, d) -> (batch, d) at one position per row, or unchanged when positions is None."""
    if positions is None:
        return x
    return x[torch.arange(x.shape[0]), positions]


@torch.no_grad()
def mlp_keys(model: TinyLM, tokens: torch.Tensor, layer: int, positions: torch.Tensor | None = None) -> torch.Tensor:
    """Keys k^layer: the input of `rewrite_module(model, layer)` for every position of `tokens` (batch, seq).

    Returns (batch, seq, d_mlp), or (batch, d_mlp) at `positions` (batch,) long, one position per sequence.
    """
    seen: list[torch.Tensor] = []
    handle = rewrite_module(model, layer).register_forward_pre_hook(lambda _m, args: seen.append(args[0]))
    try:
        model(tokens)
    finally:
        handle.remove()
    return _gather(seen[0], positions)


@torch.no_grad()
def block_outputs(model: TinyLM, tokens: torch.Tensor, layer: int,
                  positions: torch.Tensor | None = None) -> torch.Tensor:
    """Hidden states h^layer: the output of `model.blocks[layer]` for every position of `tokens` (batch, seq).

    Returns (batch, seq, d_model), or (batch, d_model) at `positions` (batch,) long.
    """
    if not 0 <= layer < len(model.blocks):
        raise ValueError(f"layer {layer} out of range for a model of {len(model.blocks)} blocks")
    seen: list[torch.Tensor] = []
    handle = model.blocks[layer].register_forward_hook(lambda _m, _args, out: seen.append(out))
    try:
        model(tokens)
    finally:
        handle.remove()
    return _gather(seen[0], positions)


@contextmanager
def shift_block_output(model: TinyLM, layer: int, positions: torch.Tensor, delta: torch.Tensor) -> Iterator[None]:
    """While active, adds delta[i] (batch, d_model) to h^layer of sequence i at positions[i] in every forward."""
    rows = torch.arange(delta.shape[0])

    def hook(_m: nn.Module, _args: tuple[torch.Tensor, ...], out: torch.Tensor) -> torch.Tensor:
        shift = torch.zeros_like(out)
        shift[rows, positions] = delta
        return out + shift

    handle = model.blocks[layer].register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()
