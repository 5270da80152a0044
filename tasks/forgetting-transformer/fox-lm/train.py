"""Train the tiny language model for a few steps on the synthetic copy task.

    python train.py --attention forgetting --block pro --steps 30
    python train.py --attention softmax --block llama --steps 30      # the Transformer baseline
"""
from __future__ import annotations

import argparse

import torch

from fox.config import ModelConfig
from fox.data import batches
from fox.model import FoxLM


def train(cfg: ModelConfig, steps: int, batch_size: int = 8, seq_len: int = 32, lr: float = 3e-3,
          seed: int = 0, dtype: torch.dtype = torch.float32) -> list[float]:
    """Train a fresh model with AdamW; return the training loss of every step."""
    torch.manual_seed(seed)
    model = FoxLM(cfg).to(dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.1)
    stream = batches(batch_size, seq_len, cfg.vocab_size, seed)
    losses = []
    for _ in range(steps):
        loss = model.loss(next(stream))
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    return losses


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--attention", default="forgetting", choices=["softmax", "forgetting"])
    parser.add_argument("--block", default="pro", choices=["llama", "pro"])
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = ModelConfig(attention=args.attention, block=args.block)
    losses = train(cfg, args.steps, seq_len=args.seq_len, seed=args.seed)
    for step, loss in enumerate(losses, 1):
        if step % 5 == 0 or step == len(losses):
            print(f"step {step} loss {loss:.4f}")
    return losses


if __name__ == "__main__":
    main()
