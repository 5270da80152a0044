"""The HRM network: input embedding f_I, recurrent modules f_L and f_H, output head f_O and Q-head."""
import torch
from torch import nn

from .config import HRMConfig
from .layers import ReasoningModule


class HRMNet(nn.Module):
    def __init__(self, cfg: HRMConfig):
        super().__init__()
        self.cfg = cfg
        d = cfg.d_model
        self.embed = nn.Embedding(cfg.vocab_size, d)            # f_I
        self.pos = nn.Parameter(0.02 * torch.randn(cfg.seq_len, d))
        self.low = ReasoningModule(d, cfg.n_heads, cfg.l_layers)   # f_L
        self.high = ReasoningModule(d, cfg.n_heads, cfg.h_layers)  # f_H
        self.head = nn.Linear(d, cfg.vocab_size, bias=False)     # f_O
        self.q_head = nn.Linear(d, 2)                            # (Q_halt, Q_continue) logits
        # fixed initial states z^0, broadcast over batch and positions
        self.register_buffer("z_h_init", torch.randn(d))
        self.register_buffer("z_l_init", torch.randn(d))

    def input_embedding(self, x: torch.Tensor) -> torch.Tensor:
        """x: (B, S) int64 -> x~: (B, S, d)."""
        return self.embed(x) + self.pos

    def initial_state(self, batch: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Returns (z_H^0, z_L^0), each (batch, seq_len, d)."""
        shape = (batch, self.cfg.seq_len, self.cfg.d_model)
        return self.z_h_init.expand(shape).clone(), self.z_l_init.expand(shape).clone()

    def q_values(self, z_h: torch.Tensor) -> torch.Tensor:
        """Q logits from the first position of z_H: (B, S, d) -> (B, 2) = (halt, continue)."""
        return self.q_head(z_h[:, 0])


def exact_match(logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """(B, S, V) logits, (B, S) targets -> (B,) bool: every position's argmax (first index on ties) equals y."""
    return (logits.argmax(dim=-1) == y).all(dim=1)


def sample_min_segments(batch: int, max_segments: int, explore_prob: float,
                        generator: torch.Generator) -> torch.Tensor:
    """M_min per sequence: with probability explore_prob uniform on {2..max_segments}, else 1. (B,) int64."""
    explore = torch.rand(batch, generator=generator) < explore_prob
    uniform = torch.randint(2, max_segments + 1, (batch,), generator=generator)
    return torch.where(explore, uniform, torch.ones_like(uniform))
