"""Data-dependent gates of the memory update: forgetting alpha_t, momentum decay eta_t, inner learning rate theta_t."""
from __future__ import annotations

import torch
from torch import nn


class MemoryGates(nn.Module):
    """Per-token gates from the token's representation x_t: each is a sigmoid of a linear map of x_t.

    alpha_t = sigmoid(x_t w_a + b_a), eta_t = sigmoid(x_t w_e + b_e), theta_t = max_inner_lr * sigmoid(x_t w_t + b_t).
    """

    def __init__(self, dim: int, max_inner_lr: float) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, 3)
        self.max_inner_lr = max_inner_lr
        with torch.no_grad():
            self.proj.bias.copy_(torch.tensor([-4.0, 2.0, 0.0]))  # little forgetting, strong momentum at start

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """x: (B, T, dim) -> alpha, eta, theta, each (B, T)."""
        a, e, t = torch.sigmoid(self.proj(x)).unbind(-1)
        return a, e, self.max_inner_lr * t
