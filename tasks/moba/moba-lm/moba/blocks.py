"""Block partition of a sequence: which positions form which block."""
from __future__ import annotations

import torch


def check_block_size(block_size: int) -> None:
    """Raise ValueError unless block_size is a positive integer."""
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer, got {block_size!r}")


def num_blocks(seq_len: int, block_size: int) -> int:
    """Number of blocks that cover positions 0 .. seq_len - 1: ceil(seq_len / block_size)."""
    check_block_size(block_size)
    return -(-seq_len // block_size)


def block_of(positions: torch.Tensor, block_size: int) -> torch.Tensor:
    """Index of the block that holds each position (positions counted from 0): block j holds positions
    j * block_size .. (j + 1) * block_size - 1."""
    check_block_size(block_size)
    return torch.div(positions, block_size, rounding_mode="floor")


def block_lengths(seq_len: int, block_size: int) -> torch.Tensor:
    """Number of positions in each block, (num_blocks,) int64: block_size for every block but possibly the last."""
    starts = torch.arange(num_blocks(seq_len, block_size)) * block_size
    return (seq_len - starts).clamp(max=block_size)
