"""Configuration of the log-linear Mamba-2 layer and of the tiny language model."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class LogLinearConfig:
    """Sizes and options of one `loglin.loglinear.LogLinearMamba2` layer.

    hidden_size: width of the residual stream.
    num_heads: number of heads; each head has its own set of level states of shape (head_k_dim, head_v_dim).
    head_k_dim, head_v_dim: key/query width and value width of one head.
    num_levels: number of hierarchy levels (level 0 included) that get a weight lambda; a sequence (prompt and
        generated tokens together) may hold at most 2 ** (num_levels - 1) positions.
    chunk_size: chunk length of the chunkwise-parallel form; a power of two.
    norm_eps: epsilon of the RMS norms.
    """

    hidden_size: int = 32
    num_heads: int = 2
    head_k_dim: int = 8
    head_v_dim: int = 8
    num_levels: int = 8
    chunk_size: int = 16
    norm_eps: float = 1e-6

    def __post_init__(self) -> None:
        for name in ("hidden_size", "num_heads", "head_k_dim", "head_v_dim", "num_levels", "chunk_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")

    @property
    def max_positions(self) -> int:
        """The longest sequence the level weights cover."""
        return 2 ** (self.num_levels - 1)


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of `loglin.model.LogLinearLM`.

    vocab_size: number of token ids.
    num_layers: number of blocks (a log-linear Mamba-2 layer and an MLP, each pre-normed with a residual).
    mlp_ratio: width of the MLP's hidden layer as a multiple of layer.hidden_size.
    layer: the configuration shared by every layer.
    """

    vocab_size: int = 16
    num_layers: int = 2
    mlp_ratio: int = 2
    layer: LogLinearConfig = field(default_factory=LogLinearConfig)
