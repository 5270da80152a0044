"""Configuration of the warmup training and of the selection."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """The toy language model (less/model.py)."""

    vocab_size: int = 16
    dim: int = 8  # width of the frozen token representation
    rank: int = 2  # LoRA rank: the only trainable parameters are lora_A (dim x rank) and lora_B (rank x vocab)
    seed: int = 0  # initialisation of the frozen weights and of lora_A


@dataclass(frozen=True)
class WarmupConfig:
    """Warmup training with LoRA on a random subset of the pool (Section 2.3 of paper.md, step 1)."""

    warmup_fraction: float = 0.05  # fraction of the pool used for warmup training
    epochs: int = 4  # N: one checkpoint is saved at the end of each epoch
    batch_size: int = 4
    lr: float = 2e-2  # peak learning rate
    lr_schedule: str = "linear"  # "linear": linear decay from lr to 0 over all steps; "constant"
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8
    seed: int = 0  # the warmup subset and the order of the batches


@dataclass(frozen=True)
class SelectConfig:
    """The selection (Section 2.3 of paper.md, steps 2 and 3)."""

    proj_dim: int = 16  # d: dimension of the projected gradient features
    proj_seed: int = 0  # seed of the random projection (less/projection.py)
    fraction: float = 0.05  # share of the pool to select; the count is max(1, floor(fraction * n))
