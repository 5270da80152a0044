"""Model configuration shared by every module of the package."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters of `difft.model.DiffLM` and its layers.

    n_heads: number of differential attention heads h.
    head_dim: d, the width of each of a head's two query/key halves; a head's values are 2 d wide, and
        d_model must equal 2 h d (so that the layer has as many parameters as a Transformer layer with 2 h heads
        of width d).
    lambda_std: standard deviation of the normal initialisation of the four lambda vectors of each layer.
    norm_eps: epsilon of every RMSNorm (the blocks' norms and the per-head norm).
    """

    vocab_size: int = 40
    d_model: int = 32
    n_heads: int = 2
    head_dim: int = 8
    n_layers: int = 3
    d_ff: int = 64
    max_len: int = 64
    norm_eps: float = 1e-5
    rope_base: float = 10000.0
    lambda_std: float = 0.1

    def __post_init__(self) -> None:
        if self.d_model != 2 * self.n_heads * self.head_dim:
            raise ValueError(f"d_model={self.d_model} must equal 2 * n_heads * head_dim "
                             f"= {2 * self.n_heads * self.head_dim}")
        if self.head_dim % 2 != 0:
            raise ValueError("head_dim must be even (rotary embeddings rotate pairs of features)")
