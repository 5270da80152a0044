"""Hyper-parameters of a Matryoshka SAE and of its training run."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SAEConfig:
    """Shape, sparsity and auxiliary loss of a Matryoshka BatchTopK SAE."""

    d_model: int = 16  # width of the activations the SAE reconstructs
    # Sizes of the consecutive groups the latents are split into, in latent order; the dictionary size is their
    # sum. Nested dictionary i is made of the first i groups (Section 3).
    group_sizes: tuple[int, ...] = (4, 12, 32)
    k: int = 4  # BatchTopK: the mean number of active latents per token
    aux_k: int = 16  # AuxK: the number of dead latents used per token to model the residual
    aux_coefficient: float = 1.0 / 32.0  # alpha: weight of the auxiliary loss
    dead_after_batches: int = 50  # a latent is dead once it has not fired in this many consecutive batches
    dtype: str = "float32"  # "float32" or "float64": dtype of every parameter and buffer

    def __post_init__(self) -> None:
        if not self.group_sizes or min(self.group_sizes) < 1:
            raise ValueError(f"group_sizes must be positive, got {self.group_sizes}")
        if self.k < 1 or self.aux_k < 1 or self.dead_after_batches < 1:
            raise ValueError("k, aux_k and dead_after_batches must be at least 1")

    @property
    def d_sae(self) -> int:
        """The dictionary size: the number of latents of the largest nested dictionary."""
        return sum(self.group_sizes)


@dataclass(frozen=True)
class TrainConfig:
    """One training run on a stream of padded activation batches."""

    steps: int = 300
    batch_size: int = 16  # sequences per batch
    max_len: int = 16  # padded sequence length; each sequence has between 1 and max_len real tokens
    lr: float = 3e-3
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    seed: int = 0
