"""Hyper-parameters of a DPO run."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ModelConfig:
    vocab_size: int = 32
    d_model: int = 32
    n_heads: int = 2
    n_layers: int = 2
    max_len: int = 64
    dropout: float = 0.0


@dataclass
class DPOConfig:
    # Strength of the implicit KL penalty towards the reference model.
    beta: float = 0.1
    # Probability that a preference label is flipped (conservative DPO); 0 disables it.
    label_smoothing: float = 0.0
    # "sigmoid" = the DPO objective, "ipo" = the squared-loss IPO objective.
    loss_type: str = "sigmoid"
    lr: float = 5e-3
    weight_decay: float = 0.0
    batch_size: int = 8
    steps: int = 20
    max_grad_norm: float = 1.0
    seed: int = 0
    log_every: int = 5
