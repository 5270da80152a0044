"""Model configuration shared by every module of the package."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters of `MlaLM` and its attention layers (notation of paper.md in brackets).

    n_heads: attention heads [n_h].
    head_dim: per-head width of the compressed-path queries, keys and values [d_h].
    rope_head_dim: per-head width of the decoupled rotary queries and of the shared rotary key [d_h^R]; even.
    kv_lora_rank: width of the compressed key-value latent [d_c].
    q_lora_rank: width of the compressed query latent [d_c'].
    """

    vocab_size: int = 64
    d_model: int = 32
    n_heads: int = 4
    head_dim: int = 8
    rope_head_dim: int = 4
    kv_lora_rank: int = 16
    q_lora_rank: int = 24
    n_layers: int = 2
    d_ff: int = 64
    rope_base: float = 10000.0
    norm_eps: float = 1e-6

    def __post_init__(self) -> None:
        sizes = (self.n_heads, self.head_dim, self.rope_head_dim, self.kv_lora_rank, self.q_lora_rank)
        if min(sizes) < 1:
            raise ValueError("every width must be positive")
        if self.rope_head_dim % 2 != 0:
            raise ValueError(f"rope_head_dim={self.rope_head_dim} must be even")
