"""Configuration of the tiny Titans model."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TitansConfig:
    vocab_size: int = 32
    dim: int = 16            # model width; keys, values and queries of the memory have this width too
    memory_depth: int = 2    # number of weight matrices of the memory MLP (1 = a linear memory)
    memory_hidden: int = 32  # hidden width of the memory MLP (when memory_depth >= 2)
    chunk_size: int = 4      # tokens per chunk of the parallel (mini-batch) memory update
    max_inner_lr: float = 0.1  # theta_t = max_inner_lr * sigmoid(...)
    n_persistent: int = 4    # learnable persistent memory tokens prepended to the sequence
    window: int = 8          # sliding-window attention: each token sees this many latest positions
    n_heads: int = 2

    def __post_init__(self) -> None:
        if self.memory_depth < 1:
            raise ValueError("memory_depth must be >= 1")
        if self.chunk_size < 1:
            raise ValueError("chunk_size must be >= 1")
        if self.dim % self.n_heads:
            raise ValueError("dim must be divisible by n_heads")

    def memory_shapes(self) -> list[tuple[int, int]]:
        """(d_in, d_out) of each weight matrix of the memory MLP, input side first."""
        if self.memory_depth == 1:
            return [(self.dim, self.dim)]
        widths = [self.dim] + [self.memory_hidden] * (self.memory_depth - 1) + [self.dim]
        return list(zip(widths[:-1], widths[1:]))


@dataclass(frozen=True)
class TrainConfig:
    batch_size: int = 4
    seq_len: int = 16
    steps: int = 5
    lr: float = 3e-3
    seed: int = 0
