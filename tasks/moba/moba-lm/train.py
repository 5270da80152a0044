"""Train the tiny language model for a few steps on the synthetic copy task.

    python train.py --block-size 4 --top-k 2 --steps 30
    python train.py --impl naive --full-attention-layers 1 --steps 30
"""
from __future__ import annotations

import argparse

import torch

from moba.config import ModelConfig
from moba.data import batches
from moba.model import MobaLM


def train(cfg: ModelConfig, steps: int, batch_size: int = 8, seq_len: int = 32, lr: float = 3e-3,
          seed: int = 0, dtype: torch.dtype = torch.float32) -> list[float]:
    """Train a fresh model with AdamW; return the training loss of every step."""
    torch.manual_seed(seed)
    model = MobaLM(cfg).to(dtype)
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
    parser.add_argument("--block-size", type=int, default=4)
    parser.add_argument("--top-k", type=int, default=2)
    parser.add_argument("--impl", default="varlen", choices=["naive", "varlen"])
    parser.add_argument("--full-attention-layers", type=int, default=0)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = ModelConfig(block_size=args.block_size, top_k=args.top_k, moba_impl=args.impl,
                      full_attention_layers=args.full_attention_layers)
    losses = train(cfg, args.steps, seq_len=args.seq_len, seed=args.seed)
    for step, loss in enumerate(losses, 1):
        if step % 5 == 0 or step == len(losses):
            print(f"step {step} loss {loss:.4f}")
    return losses


if __name__ == "__main__":
    main()
