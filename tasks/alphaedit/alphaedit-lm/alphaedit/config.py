"""Configuration of the tiny language model, its pre-training and the editor."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """Shape of `TinyLM` (alphaedit/model.py)."""

    vocab_size: int = 28
    """Number of token ids, including the padding id 0."""
    d_model: int = 16
    """Width of the residual stream (d1: the output size of each MLP's output matrix)."""
    d_mlp: int = 128
    """Hidden width of each MLP (d0: the size of a key)."""
    n_layers: int = 4
    """Number of transformer blocks."""
    n_heads: int = 2
    """Attention heads per block."""
    max_len: int = 8
    """Longest sequence the position embedding covers."""


@dataclass(frozen=True)
class PretrainConfig:
    """How `train.py` teaches the tiny model its facts before any edit."""

    steps: int = 300
    """Full-batch Adam steps."""
    lr: float = 1e-2
    """Adam learning rate."""
    seed: int = 0
    """Seed of the model's initialisation and of the fact world."""


@dataclass(frozen=True)
class EditConfig:
    """Hyper-parameters of an AlphaEdit run (alphaedit/editor.py)."""

    layers: tuple[int, ...] = (0, 1, 2)
    """The critical layers l_1, ..., L: consecutive and ascending; the last one is L."""
    nullspace_threshold: float = 5.0
    """Eigenvalues of K0 K0^T strictly below this value are treated as zero when building the projector P."""
    reg_weight: float = 1.0
    """Coefficient of the regularisation term ||Delta P||^2 of the editing objective (1 in the paper)."""
    cov_batch_size: int = 16
    """Sequences of the preserved corpus run through the model at once when collecting K0 K0^T."""
    v_steps: int = 25
    """Adam steps of the target-hidden-state optimisation (alphaedit/target_hidden.py)."""
    v_lr: float = 0.5
    """Adam learning rate of that optimisation."""
    v_weight_decay: float = 1e-3
    """Coefficient of ||delta||^2 added to the negative log-likelihood in that optimisation."""
    v_clamp_factor: float = 4.0
    """||delta|| is kept at most this multiple of ||h^L|| of the same request."""

    def __post_init__(self) -> None:
        if not self.layers or any(b != a + 1 for a, b in zip(self.layers, self.layers[1:])):
            raise ValueError(f"layers must be non-empty, consecutive and ascending, got {self.layers}")
        if self.nullspace_threshold <= 0 or self.reg_weight <= 0:
            raise ValueError("nullspace_threshold and reg_weight must be positive")
