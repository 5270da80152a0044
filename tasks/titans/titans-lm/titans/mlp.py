"""The memory module M: a plain MLP whose weights are the memory's state.

The weights are a list of matrices ``[W_1, ..., W_L]`` of shapes (..., d_in, d_out) (leading dimensions, e.g. the
batch, broadcast), applied to row vectors: ``h_1 = x W_1``, ``h_{i+1} = silu(h_i) W_{i+1}``; no biases, no
activation after the last matrix. With one matrix the memory is linear, M(x) = x W.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def memory_forward(weights: list[torch.Tensor], x: torch.Tensor) -> torch.Tensor:
    """Apply the memory MLP to x of shape (..., d_in) (or (..., n, d_in)); matmul broadcasting rules apply."""
    h = x
    for i, w in enumerate(weights):
        if i > 0:
            h = F.silu(h)
        h = h @ w
    return h


def associative_loss(weights: list[torch.Tensor], k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """The associative memory loss ||M(k) - v||^2, summed over the feature dimension (one value per row of k)."""
    return (memory_forward(weights, k) - v).pow(2).sum(-1)


def init_memory_weights(shapes: list[tuple[int, int]], generator: torch.Generator | None = None,
                        dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    """Initial memory weights (the meta-learned starting point M_0), scaled like nn.Linear's default."""
    out = []
    for d_in, d_out in shapes:
        bound = d_in ** -0.5
        out.append((torch.rand(d_in, d_out, generator=generator, dtype=dtype) * 2 - 1) * bound)
    return out
