"""Recursion-wise KV cache for decoding a Mixture-of-Recursions model one token at a time."""
from __future__ import annotations

import torch


class RecursionKVCache:
    """Keys and values per recursion level and per layer of the shared block.

    keys, values: (n_levels, n_layers, B, H, max_len, dh); written: (n_levels, B, max_len) bool, True where the
    token at that position stored its keys/values at that level; length: number of positions decoded so far.
    n_levels is N_r for recursion-wise caching, and 1 with recursive KV sharing (the first recursion's level).
    outer_keys, outer_values: (2, B, H, max_len, dh), the keys/values of the unique first (index 0) and last
    (index 1) layers of Middle-Cycle sharing, written for every position (unused under Cycle sharing).
    """

    def __init__(self, n_levels: int, n_layers: int, batch: int, n_heads: int, head_dim: int, max_len: int,
                 dtype: torch.dtype = torch.float64) -> None:
        shape = (n_levels, n_layers, batch, n_heads, max_len, head_dim)
        self.keys = torch.zeros(shape, dtype=dtype)
        self.values = torch.zeros(shape, dtype=dtype)
        self.written = torch.zeros(n_levels, batch, max_len, dtype=torch.bool)
        self.outer_keys = torch.zeros(2, batch, n_heads, max_len, head_dim, dtype=dtype)
        self.outer_values = torch.zeros(2, batch, n_heads, max_len, head_dim, dtype=dtype)
        self.length = 0
        self.max_len = max_len
        self.batch = batch

    @property
    def n_levels(self) -> int:
        return self.keys.shape[0]
