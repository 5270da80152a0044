"""Hyper-parameters of the model and of the sparse attention pattern."""

from dataclasses import dataclass


@dataclass
class NSAConfig:
    vocab_size: int = 32
    d_model: int = 32
    n_layers: int = 2
    n_heads: int = 4  # query heads H
    n_kv_heads: int = 2  # key/value heads G (GQA); H must be a multiple of G
    head_dim: int = 8  # dk
    value_dim: int = 8  # dv
    # sparsity pattern (the paper uses l=32, d=16, l'=64, n=16, w=512 on long sequences)
    cmp_block_size: int = 8  # l
    cmp_stride: int = 4  # d (divides l and l')
    slc_block_size: int = 8  # l'
    num_selected: int = 3  # n, forced blocks included
    num_init_blocks: int = 1
    num_local_blocks: int = 1
    window_size: int = 8  # w
    max_seq_len: int = 64

    def __post_init__(self) -> None:
        if self.n_heads % self.n_kv_heads:
            raise ValueError("n_heads must be a multiple of n_kv_heads")
        if self.cmp_block_size % self.cmp_stride or self.slc_block_size % self.cmp_stride:
            raise ValueError("cmp_stride must divide cmp_block_size and slc_block_size")

    def sparsity_kwargs(self) -> dict:
        """Keyword arguments of nsa.attention.nsa_attention."""
        return {
            "cmp_block_size": self.cmp_block_size,
            "cmp_stride": self.cmp_stride,
            "slc_block_size": self.slc_block_size,
            "num_selected": self.num_selected,
            "window_size": self.window_size,
            "num_init_blocks": self.num_init_blocks,
            "num_local_blocks": self.num_local_blocks,
        }
