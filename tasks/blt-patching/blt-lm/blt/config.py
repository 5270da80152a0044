"""Configuration of the patcher, the local encoder and the whole model."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

PatchingMethod = Literal["global", "monotonic"]
PoolingKind = Literal["max", "mean"]

BYTE_VOCAB = 256
"""Byte values are 0 .. 255."""
BOS_ID = 256
"""Beginning-of-sequence id, used by the entropy model only."""


@dataclass(frozen=True)
class PatchingConfig:
    """Entropy patching.

    method: "global" is the global constraint, "monotonic" the approximate monotonic constraint.
    threshold: theta_g for "global", theta_r for "monotonic"; entropies are in nats.
    """

    method: PatchingMethod = "global"
    threshold: float = 2.0

    def __post_init__(self) -> None:
        if self.method not in ("global", "monotonic"):
            raise ValueError(f"unknown patching method {self.method!r}")


@dataclass(frozen=True)
class EncoderConfig:
    """Local encoder.

    d_local: width h_E of the byte representations.
    n_layers: number of encoder transformer layers l_E (one cross-attention per layer).
    local_heads: heads of the byte-level self-attention.
    window: each byte attends to itself and the `window - 1` bytes before it (self-attention only).
    ngram_sizes: the n of every hash n-gram embedding table, in the order of `HashNgramEmbedding.hash_embeds`.
    hash_table_size: number of rows of every hash embedding table.
    ngram_pad_byte: byte value assumed at the positions before the first byte of a sequence when an n-gram
        reaches past the start.
    cross_heads: number U_E of cross-attention heads; each head has width d_local, so patch representations have
        width d_patch = d_local * cross_heads (head layout of `blt.layers.split_heads`).
    pooling: the pooling function f that initialises the patch representations.
    norm_eps: epsilon of every LayerNorm.
    """

    d_local: int = 16
    n_layers: int = 2
    local_heads: int = 2
    window: int = 8
    ngram_sizes: tuple[int, ...] = (3, 4, 5)
    hash_table_size: int = 97
    ngram_pad_byte: int = 0
    cross_heads: int = 2
    pooling: PoolingKind = "max"
    norm_eps: float = 1e-5

    def __post_init__(self) -> None:
        if self.d_local % self.local_heads != 0:
            raise ValueError(f"d_local={self.d_local} is not divisible by local_heads={self.local_heads}")
        if self.pooling not in ("max", "mean"):
            raise ValueError(f"unknown pooling {self.pooling!r}")
        if any(n < 1 for n in self.ngram_sizes):
            raise ValueError("n-gram sizes must be positive")
        if not 0 <= self.ngram_pad_byte < BYTE_VOCAB:
            raise ValueError("ngram_pad_byte must be a byte value")

    @property
    def d_patch(self) -> int:
        """Width h_G of the patch representations (cross_heads heads of width d_local)."""
        return self.d_local * self.cross_heads


@dataclass(frozen=True)
class ModelConfig:
    """The whole model: entropy model, patcher, local encoder, latent global transformer, byte head.

    entropy_d / entropy_layers / entropy_heads: the small byte language model that gives the entropies.
    global_layers / global_heads: the latent global transformer over patches (width encoder.d_patch).
    """

    patching: PatchingConfig = field(default_factory=PatchingConfig)
    encoder: EncoderConfig = field(default_factory=EncoderConfig)
    entropy_d: int = 32
    entropy_layers: int = 2
    entropy_heads: int = 2
    global_layers: int = 2
    global_heads: int = 4
