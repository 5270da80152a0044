"""Model configuration shared by every module of the package."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Placement = Literal["none", "pre", "post"]
PLACEMENTS = ("none", "pre", "post")


@dataclass(frozen=True)
class ModelConfig:
    """Hyper-parameters of `mta.model.MTALM` and its layers.

    vocab_size, d_model, n_heads, n_layers, d_ff, max_len: sizes of the decoder (head_dim = d_model / n_heads).
    norm_eps: epsilon of every RMSNorm (the blocks' norms and the per-head group normalisation).
    rope_base: base of the rotary position embeddings of queries and keys.
    kq_conv: where the key-query convolution sits: "pre" (on the attention logits, before the softmax),
        "post" (on the attention weights, after the softmax) or "none".
    kq_query, kq_key: the key-query kernel's size c_q along the query axis and c_k along the key axis.
    kq_every: the key-query convolution is used in the layers l (1-based) with l % kq_every == 0.
    head_conv: where the head-mixing convolution sits: "pre", "post" or "none"; it is used in every layer.
    head_group: c_h, the number of heads in each group the head-mixing convolution mixes.
    group_norm: whether each head's output goes through the group normalisation with depth scaling.
    """

    vocab_size: int = 32
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 4
    d_ff: int = 64
    max_len: int = 64
    norm_eps: float = 1e-5
    rope_base: float = 10000.0
    kq_conv: Placement = "pre"
    kq_query: int = 3
    kq_key: int = 5
    kq_every: int = 2
    head_conv: Placement = "post"
    head_group: int = 2
    group_norm: bool = True

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads != 0:
            raise ValueError(f"d_model={self.d_model} is not a multiple of n_heads={self.n_heads}")
        if self.head_dim % 2 != 0:
            raise ValueError("head_dim must be even (rotary embeddings rotate pairs of features)")
        if self.kq_conv not in PLACEMENTS or self.head_conv not in PLACEMENTS:
            raise ValueError(f"placements must be one of {PLACEMENTS}")
        if min(self.kq_query, self.kq_key, self.kq_every, self.head_group) < 1:
            raise ValueError("kernel sizes, kq_every and head_group must be positive")
        if self.n_heads % self.head_group != 0:
            raise ValueError(f"n_heads={self.n_heads} is not a multiple of head_group={self.head_group}")

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads
