"""Hyper-parameters of a JumpReLU SAE and of its training run."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SAEConfig:
    """Shape and initialisation of a JumpReLU SAE."""

    d_model: int = 16  # n: width of the activations the SAE reconstructs
    d_sae: int = 64  # M: number of SAE features (dictionary size)
    threshold_init: float = 0.001  # initial value of every threshold theta_i
    bandwidth: float = 0.001  # epsilon: the kernel bandwidth of the pseudo-derivatives
    dtype: str = "float32"  # "float32" or "float64": dtype of every parameter


@dataclass(frozen=True)
class TrainConfig:
    """One training run on an activation stream."""

    steps: int = 200
    batch_size: int = 256
    lr: float = 7e-4
    adam_beta1: float = 0.0
    adam_beta2: float = 0.999
    sparsity_coefficient: float = 1.0  # lambda, reached at the end of the warm-up
    sparsity_warmup_steps: int = 50  # lambda grows linearly from 0 over this many steps (0: no warm-up)
    # If True, every row of W_dec (a feature's decoder direction) is kept at unit L2 norm: before each optimizer
    # step the component of each row's gradient parallel to that row is removed, and after the step each row
    # is divided by its norm.
    unit_norm_decoder: bool = True
    seed: int = 0
