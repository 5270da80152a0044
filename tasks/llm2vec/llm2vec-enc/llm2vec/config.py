"""Configurations of the tiny decoder LM and of the two LLM2Vec training stages."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ModelConfig:
    vocab_size: int = 64
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 64
    max_len: int = 64
    dropout: float = 0.0          # residual and attention-probability dropout (active in train mode only)
    pad_id: int = 0

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError("d_model must be a multiple of n_heads")


@dataclass
class MNTPConfig:
    """Masked next token prediction (stage 2)."""
    mask_prob: float = 0.2        # fraction of maskable tokens replaced by the mask token
    steps: int = 20
    lr: float = 3e-3
    batch_size: int = 8


@dataclass
class SimCSEConfig:
    """Unsupervised contrastive learning (stage 3)."""
    temperature: float = 0.05
    dropout: float = 0.3          # the model's dropout during this stage
    pooling: str = "mean"         # "mean", "weighted_mean" or "eos"
    steps: int = 20
    lr: float = 3e-3
    batch_size: int = 8
