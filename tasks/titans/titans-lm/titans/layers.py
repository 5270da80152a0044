"""Layers of the tiny Titans model: the neural memory layer, sliding-window attention, persistent memory."""
from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from titans.config import TitansConfig
from titans.gates import MemoryGates
from titans.memory import chunked_update, retrieve, sequential_update
from titans.mlp import init_memory_weights


class NeuralMemory(nn.Module):
    """The long-term memory as a layer: writes every token into the memory and reads each token's query back.

    The projections W_Q, W_K, W_V, the gates and the initial memory weights M_0 are trained by the outer loop;
    the memory weights themselves change inside `forward`, token by token (or chunk by chunk).
    """

    def __init__(self, cfg: TitansConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.to_q = nn.Linear(cfg.dim, cfg.dim, bias=False)
        self.to_k = nn.Linear(cfg.dim, cfg.dim, bias=False)
        self.to_v = nn.Linear(cfg.dim, cfg.dim, bias=False)
        self.gates = MemoryGates(cfg.dim, cfg.max_inner_lr)
        g = torch.Generator().manual_seed(1234)
        self.init_weights = nn.ParameterList(nn.Parameter(w) for w in init_memory_weights(cfg.memory_shapes(), g))
        self.out = nn.Linear(cfg.dim, cfg.dim, bias=False)

    def forward(self, x: torch.Tensor, sequential: bool = False) -> torch.Tensor:
        """x: (B, T, dim) -> (B, T, dim)."""
        B = x.shape[0]
        q = F.normalize(self.to_q(x), dim=-1)
        k = F.normalize(self.to_k(x), dim=-1)
        v = self.to_v(x)
        alpha, eta, theta = self.gates(x)
        weights = [w.to(x.dtype).expand(B, *w.shape) for w in self.init_weights]
        momentum = [torch.zeros_like(w) for w in weights]
        if sequential:
            states, _ = sequential_update(weights, momentum, k, v, alpha, eta, theta)
        else:
            states, _ = chunked_update(weights, momentum, k, v, alpha, eta, theta, self.cfg.chunk_size)
        return self.out(retrieve(states, q))


class SlidingWindowAttention(nn.Module):
    """Causal multi-head attention in which each position sees its `window` latest positions (itself included)."""

    def __init__(self, cfg: TitansConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.qkv = nn.Linear(cfg.dim, 3 * cfg.dim, bias=False)
        self.out = nn.Linear(cfg.dim, cfg.dim, bias=False)

    def forward(self, x: torch.Tensor, n_prefix: int = 0) -> torch.Tensor:
        """x: (B, T, dim); the first `n_prefix` positions (persistent tokens) are visible to every position."""
        B, T, D = x.shape
        H = self.cfg.n_heads
        q, k, v = self.qkv(x).view(B, T, 3, H, D // H).permute(2, 0, 3, 1, 4)
        pos = torch.arange(T)
        allowed = (pos[None, :] <= pos[:, None]) & (pos[:, None] - pos[None, :] < self.cfg.window)
        allowed |= pos[None, :] < n_prefix
        scores = (q @ k.transpose(-1, -2)) / (D // H) ** 0.5
        scores = scores.masked_fill(~allowed, float("-inf"))
        y = torch.softmax(scores, -1) @ v
        return self.out(y.transpose(1, 2).reshape(B, T, D))


class PersistentMemory(nn.Module):
    """Learnable, input-independent tokens prepended to the sequence (task knowledge)."""

    def __init__(self, cfg: TitansConfig) -> None:
        super().__init__()
        self.tokens = nn.Parameter(torch.randn(cfg.n_persistent, cfg.dim) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.tokens.to(x.dtype).expand(x.shape[0], -1, -1), x], 1)
