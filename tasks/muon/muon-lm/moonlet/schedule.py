"""Learning-rate schedule: linear warm-up, then cosine decay to a floor."""
from __future__ import annotations

import math

import torch

from moonlet.config import OptimConfig


def warmup_cosine(cfg: OptimConfig):
    """The multiplier of the peak learning rate at step s (0-based), for `torch.optim.lr_scheduler.LambdaLR`."""

    def factor(step: int) -> float:
        if step < cfg.warmup_steps:
            return (step + 1) / cfg.warmup_steps
        span = max(1, cfg.total_steps - cfg.warmup_steps)
        progress = min(1.0, (step - cfg.warmup_steps) / span)
        return cfg.min_lr_ratio + (1 - cfg.min_lr_ratio) * 0.5 * (1 + math.cos(math.pi * progress))

    return factor


def scheduler(optimizer: torch.optim.Optimizer, cfg: OptimConfig) -> torch.optim.lr_scheduler.LambdaLR:
    """One LambdaLR over every parameter group of `optimizer`."""
    return torch.optim.lr_scheduler.LambdaLR(optimizer, warmup_cosine(cfg))
