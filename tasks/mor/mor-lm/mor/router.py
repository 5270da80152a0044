"""Routers of Mixture-of-Recursions: lightweight linear scorers on the hidden states."""
from __future__ import annotations

import torch
from torch import nn


class ExpertChoiceRouter(nn.Module):
    """One linear scorer per recursion step: `scores(h, r)` gives the raw score s^r of every position.

    With `aux_hidden > 0` it also holds the auxiliary router (one small MLP per step): `aux_scores(h, r)` gives
    its raw logit of every position.
    """

    def __init__(self, d_model: int, n_recursions: int, aux_hidden: int = 0) -> None:
        super().__init__()
        self.proj = nn.ModuleList(nn.Linear(d_model, 1, bias=False) for _ in range(n_recursions))
        self.aux = None
        if aux_hidden > 0:
            self.aux = nn.ModuleList(
                nn.Sequential(nn.Linear(d_model, aux_hidden), nn.SiLU(), nn.Linear(aux_hidden, 1))
                for _ in range(n_recursions))

    def scores(self, h: torch.Tensor, step: int) -> torch.Tensor:
        """h: (B, T, d) hidden states entering step `step` (0-based). Returns raw scores (B, T)."""
        return self.proj[step](h).squeeze(-1)

    def aux_scores(self, h: torch.Tensor, step: int) -> torch.Tensor:
        """h: (B, T, d). Returns the auxiliary router's raw logits (B, T) for step `step` (0-based)."""
        return self.aux[step](h).squeeze(-1)


class TokenChoiceRouter(nn.Module):
    """A single linear scorer over the N_r depths: `logits(h)` gives (B, T, N_r); depth i <-> index i - 1."""

    def __init__(self, d_model: int, n_recursions: int) -> None:
        super().__init__()
        self.proj = nn.Linear(d_model, n_recursions, bias=False)

    def logits(self, h: torch.Tensor) -> torch.Tensor:
        return self.proj(h)
