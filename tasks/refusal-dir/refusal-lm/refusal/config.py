"""Configuration of the tiny chat model and of the direction search."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class ModelConfig:
    vocab_size: int
    d_model: int = 32
    n_layers: int = 5
    n_heads: int = 4
    d_mlp: int = 64
    max_len: int = 32
    dtype: torch.dtype = torch.float32


@dataclass
class DirectionConfig:
    """Settings of the direction selection (Section 3 of the method description)."""

    # fraction of the layers, counted from the last one, whose candidates are never selected
    prune_layer_fraction: float = 0.2
    # a candidate is kept only if ablating it moves the harmless next-token distribution by less than this KL
    kl_threshold: float = 0.1
    # a candidate is kept only if adding it to harmless prompts gives a refusal score above this value
    induce_threshold: float = 0.0


@dataclass
class TrainConfig:
    steps: int = 300
    lr: float = 3e-3
    batch_size: int = 32
    seed: int = 0
