"""Configuration of the model, the optimizer and the training run."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

OptimizerKind = Literal["muon", "adamw"]


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of `moonlet.model.TinyLM`."""

    vocab_size: int = 48
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 80
    max_len: int = 64
    norm_eps: float = 1e-6
    mlp_bias: bool = True

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads != 0:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")


@dataclass(frozen=True)
class OptimConfig:
    """Hyper-parameters of one training run.

    optimizer: "muon" trains the hidden matrices with Muon and everything else with AdamW, in one
        `moonlet.muon.Muon`; "adamw" is the baseline, `torch.optim.AdamW` on every parameter.
    lr, weight_decay: the peak learning rate and the decoupled weight decay, shared by both kinds of parameter
        (the point of matching Muon's update RMS to AdamW's).
    momentum, nesterov, ns_steps, rms_scale: Muon's momentum coefficient, Nesterov-style momentum or not, the
        number of Newton-Schulz iterations and the target update RMS.
    betas, eps: AdamW's moment coefficients and denominator epsilon.
    no_decay_vectors: 1-D parameters (norm gains, biases) get weight_decay 0 when true.
    warmup_steps, total_steps, min_lr_ratio: the schedule of `moonlet.schedule.warmup_cosine`.
    grad_clip: global gradient-norm clip (None: no clipping).
    """

    optimizer: OptimizerKind = "muon"
    lr: float = 2e-2
    weight_decay: float = 0.1
    momentum: float = 0.95
    nesterov: bool = True
    ns_steps: int = 5
    rms_scale: float = 0.2
    betas: tuple[float, float] = field(default=(0.9, 0.95))
    eps: float = 1e-8
    no_decay_vectors: bool = True
    warmup_steps: int = 2
    total_steps: int = 20
    min_lr_ratio: float = 0.1
    grad_clip: float | None = 1.0
