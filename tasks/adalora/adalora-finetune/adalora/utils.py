"""Helpers for finding and freezing the adapter parameters of a model."""

from __future__ import annotations

from typing import Iterator

import torch.nn as nn

LORA_PARAM_NAMES = ("lora_A", "lora_E", "lora_B")


def svd_layers(model: nn.Module) -> Iterator[tuple[str, nn.Module]]:
    """Yield ``(module_name, module)`` for every SVDLinear with an active adapter (``r > 0``), in module order."""
    from adalora.layers import SVDLinear

    for name, module in model.named_modules():
        if isinstance(module, SVDLinear) and module.r > 0:
            yield name, module


def lora_parameters(model: nn.Module) -> Iterator[tuple[str, nn.Parameter]]:
    """Yield ``(parameter_name, parameter)`` for every lora_A / lora_E / lora_B tensor of the model.

    Names are the ones ``model.named_parameters()`` uses, e.g. ``"blocks.0.attn.q.lora_E"``.
    """
    for name, param in model.named_parameters():
        if name.rsplit(".", 1)[-1] in LORA_PARAM_NAMES:
            yield name, param


def mark_only_adapters_trainable(model: nn.Module, extra_trainable: tuple[str, ...] = ()) -> None:
    """Freeze everything except the adapters and the parameters whose name starts with one of ``extra_trainable``."""
    for name, param in model.named_parameters():
        is_adapter = name.rsplit(".", 1)[-1] in LORA_PARAM_NAMES
        param.requires_grad_(is_adapter or name.startswith(extra_trainable))


def count_trainable(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def effective_ranks(model: nn.Module) -> dict[str, int]:
    """Number of singular values that are not exactly zero, per SVD layer (the rank after pruning)."""
    return {name: int((module.lora_E != 0).sum()) for name, module in svd_layers(model)}
