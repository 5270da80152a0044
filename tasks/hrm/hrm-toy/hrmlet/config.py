"""Configuration of the tiny hierarchical reasoning model."""
from dataclasses import dataclass


@dataclass
class HRMConfig:
    vocab_size: int = 8
    seq_len: int = 6
    d_model: int = 16
    n_heads: int = 2
    l_layers: int = 1
    h_layers: int = 1
    n_cycles: int = 2        # N: high-level cycles per forward pass
    t_steps: int = 2         # T: low-level steps per high-level cycle
    max_segments: int = 4    # M_max
    explore_prob: float = 0.1  # epsilon
    seed: int = 0
