"""Train the tiny DIFF Transformer for a few steps on the synthetic copy task, then decode with the cache.

    python train.py --steps 30
"""
from __future__ import annotations

import argparse

import torch

from difft.config import ModelConfig
from difft.data import copy_batches
from difft.model import DiffLM


def train(cfg: ModelConfig, steps: int, batch_size: int = 8, n_keys: int = 6, lr: float = 3e-3, seed: int = 0,
          dtype: torch.dtype = torch.float32) -> tuple[DiffLM, list[float]]:
    """Train a fresh model (seeded) with AdamW; return it and the loss of every step."""
    torch.manual_seed(seed)
    model = DiffLM(cfg).to(dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
    stream = copy_batches(batch_size, n_keys, cfg.vocab_size, seed)
    losses = []
    for _ in range(steps):
        loss = model.loss(next(stream))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    return model, losses


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = ModelConfig()
    model, losses = train(cfg, args.steps, seed=args.seed)
    for step, loss in enumerate(losses, 1):
        if step % 5 == 0 or step == len(losses):
            print(f"step {step} loss {loss:.4f}")
    prompt = next(copy_batches(2, 6, cfg.vocab_size, args.seed + 1))[:, :7]
    print("greedy continuation:", model.generate(prompt, 6).tolist())
    return losses


if __name__ == "__main__":
    main()
