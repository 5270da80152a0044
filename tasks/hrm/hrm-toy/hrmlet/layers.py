"""Transformer blocks used by both recurrent modules."""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)


class Block(nn.Module):
    """Post-norm encoder block: bidirectional attention, then a GLU feed-forward."""

    def __init__(self, d: int, heads: int):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, bias=False, batch_first=True)
        self.up = nn.Linear(d, 4 * d, bias=False)
        self.down = nn.Linear(2 * d, d, bias=False)
        self.norm1 = RMSNorm(d)
        self.norm2 = RMSNorm(d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a, _ = self.attn(x, x, x, need_weights=False)
        x = self.norm1(x + a)
        g, u = self.up(x).chunk(2, dim=-1)
        return self.norm2(x + self.down(nn.functional.silu(g) * u))


class ReasoningModule(nn.Module):
    """A recurrent module (f_L or f_H): its inputs are summed element-wise, then passed through its blocks."""

    def __init__(self, d: int, heads: int, layers: int):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))

    def forward(self, state: torch.Tensor, *injections: torch.Tensor) -> torch.Tensor:
        h = state
        for inj in injections:
            h = h + inj
        for blk in self.blocks:
            h = blk(h)
        return h
