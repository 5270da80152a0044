"""Model configuration, including where and how the attention layer is gated."""
from __future__ import annotations

from dataclasses import dataclass

GATE_POSITIONS = ("none", "sdpa", "value", "key", "query", "dense")
GATE_GRANULARITIES = ("elementwise", "headwise")
GATE_SHARING = ("head_specific", "head_shared")
GATE_ACTIVATIONS = ("sigmoid", "silu")
GATE_COMBINES = ("multiply", "add")


@dataclass
class ModelConfig:
    vocab_size: int = 32
    max_len: int = 64
    d_model: int = 16
    n_heads: int = 4
    n_kv_heads: int = 2          # grouped-query attention: n_heads // n_kv_heads query heads share one key/value head
    head_dim: int = 4
    n_layers: int = 2
    d_ff: int = 32
    norm_eps: float = 1e-6
    # the gate (paper.md, Section 3): position "sdpa" is G1, "value" G2, "key" G3, "query" G4, "dense" G5
    gate_position: str = "sdpa"
    gate_granularity: str = "elementwise"
    gate_sharing: str = "head_specific"
    gate_activation: str = "sigmoid"
    gate_combine: str = "multiply"
    gate_bias: bool = False

    def __post_init__(self) -> None:
        for name, allowed in (("gate_position", GATE_POSITIONS), ("gate_granularity", GATE_GRANULARITIES),
                              ("gate_sharing", GATE_SHARING), ("gate_activation", GATE_ACTIVATIONS),
                              ("gate_combine", GATE_COMBINES)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {allowed}, got {getattr(self, name)!r}")
        if self.n_heads % self.n_kv_heads:
            raise ValueError("n_heads must be a multiple of n_kv_heads")
        if self.gate_position == "dense" and self.d_model != self.n_heads * self.head_dim:
            raise ValueError("a gate after the output projection needs d_model == n_heads * head_dim")

    def gated_heads(self) -> int:
        """Number of heads of the tensor the gate multiplies (key/value heads for "key"/"value")."""
        return self.n_kv_heads if self.gate_position in ("key", "value") else self.n_heads

    def gate_shape(self) -> tuple[int, int]:
        """(n_groups, group_dim): how the gate projection's outputs are laid out, head-major.

        The gated tensor is viewed as (..., gated_heads, head_dim) ("dense": the output projection's result viewed
        as (..., n_heads, head_dim)). Head-specific gates have one group per head, head-shared gates one group for
        all heads; elementwise gates have head_dim values per group, headwise gates one."""
        groups = self.gated_heads() if self.gate_sharing == "head_specific" else 1
        width = self.head_dim if self.gate_granularity == "elementwise" else 1
        return groups, width
