"""Model configuration shared by every module of the package."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MobaImpl = Literal["naive", "varlen"]


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters of `MobaLM` and its layers.

    block_size: number of consecutive keys in one MoBA block (the last block of a sequence may be shorter).
    top_k: number of key blocks each query of a MoBA layer attends to, its own (current) block included.
    moba_impl: which implementation of MoBA the layers call: "naive" (`moba.moba.moba_attention`, a mask over
        full attention) or "varlen" (`moba.moba.moba_attention_varlen`, the gathered form of Algorithm 1).
    full_attention_layers: how many of the last layers use full causal attention instead of MoBA (the
        layer-wise hybrid); 0 means every layer is a MoBA layer.
    """

    vocab_size: int = 64
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 64
    block_size: int = 4
    top_k: int = 2
    moba_impl: MobaImpl = "varlen"
    full_attention_layers: int = 0
    rope_base: float = 10000.0
    norm_eps: float = 1e-6

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads != 0:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        if (self.d_model // self.n_heads) % 2 != 0:
            raise ValueError("the head width must be even (rotary embeddings rotate pairs of features)")
        if self.block_size < 1 or self.top_k < 1:
            raise ValueError(f"block_size={self.block_size} and top_k={self.top_k} must be at least 1")
        if self.moba_impl not in ("naive", "varlen"):
            raise ValueError(f"unknown MoBA implementation {self.moba_impl!r}")
        if not 0 <= self.full_attention_layers <= self.n_layers:
            raise ValueError(f"full_attention_layers={self.full_attention_layers} not in [0, {self.n_layers}]")

    @property
    def head_dim(self) -> int:
        """Width of one head's queries, keys and values."""
        return self.d_model // self.n_heads
