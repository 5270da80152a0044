"""Train the tiny log-linear Mamba-2 language model on the copy task for a few steps.

    python train.py --steps 50
"""
from __future__ import annotations

import argparse

import torch
import torch.nn.functional as F

from loglin.config import ModelConfig
from loglin.data import copy_batch
from loglin.model import LogLinearLM


def build(cfg: ModelConfig, seed: int = 0, dtype: torch.dtype = torch.float32) -> LogLinearLM:
    torch.manual_seed(seed)
    return LogLinearLM(cfg).to(dtype)


def train(model: LogLinearLM, steps: int, batch: int = 4, half: int = 6, lr: float = 3e-3,
          seed: int = 0) -> list[float]:
    """A few AdamW steps of next-token prediction; returns the losses."""
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.0)
    losses = []
    for _ in range(steps):
        ids = copy_batch(batch, half, model.cfg.vocab_size, g)
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args()
    model = build(ModelConfig())
    losses = train(model, args.steps)
    print(f"loss {losses[0]:.3f} -> {losses[-1]:.3f}")


if __name__ == "__main__":
    main()
