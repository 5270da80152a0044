"""Configuration of the DeltaProduct layer and of the tiny language model."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DeltaProductConfig:
    """Sizes and options of one `deltaprod.delta_product.DeltaProductAttention` layer.

    hidden_size: width of the residual stream.
    num_heads: number of heads; each head has its own recurrent state of shape (head_k_dim, head_v_dim).
    head_k_dim, head_v_dim: key/query width and value width of one head.
    num_householder: n_h, the number of Householder (delta-rule) steps each token applies to the state.
    allow_neg_eigval: when true, beta is in [0, 2] instead of [0, 1].
    use_forget_gate: Gated DeltaProduct (a scalar forget gate per token and head) when true.
    chunk_size: chunk length of the chunkwise-parallel form, counted in steps of the sequence it runs on.
    norm_eps: epsilon of the RMS norms and of the L2 normalisation of queries and keys.
    """

    hidden_size: int = 32
    num_heads: int = 2
    head_k_dim: int = 8
    head_v_dim: int = 8
    num_householder: int = 2
    allow_neg_eigval: bool = True
    use_forget_gate: bool = False
    chunk_size: int = 16
    norm_eps: float = 1e-6

    def __post_init__(self) -> None:
        for name in ("hidden_size", "num_heads", "head_k_dim", "head_v_dim", "num_householder", "chunk_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")


@dataclass(frozen=True)
class ModelConfig:
    """Sizes of `deltaprod.model.DeltaProductLM`.

    vocab_size: number of token ids.
    num_layers: number of blocks (a DeltaProduct layer and an MLP, each pre-normed with a residual).
    mlp_ratio: width of the MLP's hidden layer as a multiple of layer.hidden_size.
    layer: the configuration shared by every DeltaProduct layer.
    """

    vocab_size: int = 16
    num_layers: int = 2
    mlp_ratio: int = 2
    layer: DeltaProductConfig = field(default_factory=DeltaProductConfig)
