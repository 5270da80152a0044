"""Model configuration shared by every module of the package."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AttentionKind = Literal["softmax", "forgetting"]
BlockKind = Literal["llama", "pro"]


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters of `FoxLM` and its layers.

    attention: "softmax" is the Transformer baseline (`fox.attention.CausalSelfAttention`, rotary
        embeddings when `rope` is true); "forgetting" is the FoX layer (`fox.forgetting.ForgettingAttention`).
    block: "llama" is the plain block; "pro" adds the Pro components to the token-mixing layer. The softmax
        baseline in this repository implements the "llama" block only.
    """

    vocab_size: int = 64
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 64
    attention: AttentionKind = "forgetting"
    block: BlockKind = "pro"
    rope: bool = True
    rope_base: float = 10000.0
    norm_eps: float = 1e-6
    tie_embeddings: bool = True

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads != 0:
            raise ValueError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        if self.attention not in ("softmax", "forgetting"):
            raise ValueError(f"unknown attention kind {self.attention!r}")
        if self.block not in ("llama", "pro"):
            raise ValueError(f"unknown block kind {self.block!r}")
        if self.attention == "softmax" and self.block != "llama":
            raise ValueError("the softmax baseline implements the 'llama' block only")

    @property
    def head_dim(self) -> int:
        """Width of one head's queries, keys and values."""
        return self.d_model // self.n_heads
