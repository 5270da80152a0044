"""TinyNSALM: a pre-norm decoder whose attention is NSA."""

import torch
from torch import Tensor, nn

from nsa.config import NSAConfig
from nsa.layer import NativeSparseAttention


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: Tensor) -> Tensor:
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class Block(nn.Module):
    def __init__(self, cfg: NSAConfig):
        super().__init__()
        self.norm1 = RMSNorm(cfg.d_model)
        self.attn = NativeSparseAttention(cfg)
        self.norm2 = RMSNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 4 * cfg.d_model), nn.GELU(), nn.Linear(4 * cfg.d_model, cfg.d_model)
        )

    def forward(self, x: Tensor) -> Tensor:
        # NSA is written for one sequence: run it per batch element
        attn = torch.stack([self.attn(seq) for seq in self.norm1(x)])
        x = x + attn
        return x + self.mlp(self.norm2(x))


class TinyNSALM(nn.Module):
    def __init__(self, cfg: NSAConfig):
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_seq_len, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)

    def forward(self, tokens: Tensor) -> Tensor:
        """(B, T) token ids -> (B, T, vocab) next-token logits."""
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.embed(tokens) + self.pos(positions)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))
