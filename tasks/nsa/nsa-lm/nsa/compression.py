"""Token compression: a learnable map from a block of consecutive keys (or values) to one vector."""

import torch
from torch import Tensor, nn


def num_compressed_blocks(seq_len: int, block_size: int, stride: int) -> int:
    """Number of complete blocks [i * stride, i * stride + block_size) inside a sequence."""
    if seq_len < block_size:
        return 0
    return (seq_len - block_size) // stride + 1


def split_blocks(x: Tensor, block_size: int, stride: int) -> Tensor:
    """(T, G, d) -> (N, G, block_size, d): the complete, possibly overlapping, blocks of x."""
    n = num_compressed_blocks(x.shape[0], block_size, stride)
    if n == 0:
        return x.new_zeros(0, x.shape[1], block_size, x.shape[2])
    return x.unfold(0, block_size, stride).permute(0, 1, 3, 2)


class BlockCompressor(nn.Module):
    """phi: adds an intra-block position embedding, flattens the block and maps it by an MLP to one vector."""

    def __init__(self, dim: int, block_size: int, stride: int, hidden: int | None = None):
        super().__init__()
        self.block_size, self.stride = block_size, stride
        hidden = hidden or 2 * dim
        self.pos = nn.Parameter(0.02 * torch.randn(block_size, dim))
        self.mlp = nn.Sequential(nn.Linear(block_size * dim, hidden), nn.GELU(), nn.Linear(hidden, dim))

    def forward(self, x: Tensor) -> Tensor:
        """(T, G, dim) -> (N, G, dim) with N = num_compressed_blocks(T, block_size, stride)."""
        blocks = split_blocks(x, self.block_size, self.stride) + self.pos
        return self.mlp(blocks.flatten(start_dim=2))
