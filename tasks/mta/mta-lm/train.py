"""Train the tiny MTA model for a few steps on the block task (Section 4.1), then answer with the cache.

    python train.py --steps 40 --kq-conv pre --head-conv post
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass

import torch

from mta.config import PLACEMENTS, ModelConfig
from mta.data import BlockTask, answer_mask, block_batch, block_batches
from mta.model import MTALM


@dataclass
class TrainResult:
    model: MTALM
    losses: list[float]
    answer_accuracy: float


def evaluate(model: MTALM, task: BlockTask, n: int, seed: int) -> float:
    """Fraction of answer tokens produced correctly by greedy decoding (with the cache) from the prompt."""
    batch = block_batch(task, n, torch.Generator().manual_seed(seed))
    prompt = batch[:, :task.answer_start]
    out = model.generate(prompt, task.block_len)
    return (out[:, task.answer_start:] == batch[:, task.answer_start:]).double().mean().item()


def train(cfg: ModelConfig, task: BlockTask, steps: int, batch_size: int = 8, lr: float = 0.05, seed: int = 0,
          dtype: torch.dtype = torch.float32) -> TrainResult:
    """Train a fresh model (seeded) with AdamW on the answer tokens; return it, its losses and its accuracy."""
    if task.seq_len > cfg.max_len or task.vocab_size != cfg.vocab_size:
        raise ValueError("the task does not fit the model")
    torch.manual_seed(seed)
    model = MTALM(cfg).to(dtype)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    stream = block_batches(task, batch_size, seed)
    mask = answer_mask(task, batch_size)
    losses = []
    for _ in range(steps):
        loss = model.loss(next(stream), mask)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
    return TrainResult(model, losses, evaluate(model, task, 16, seed + 1))


def main(argv: list[str] | None = None) -> TrainResult:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kq-conv", choices=PLACEMENTS, default="pre")
    parser.add_argument("--head-conv", choices=PLACEMENTS, default="post")
    args = parser.parse_args(argv)
    cfg = ModelConfig(kq_conv=args.kq_conv, head_conv=args.head_conv)
    result = train(cfg, BlockTask(), args.steps, seed=args.seed)
    for step, loss in enumerate(result.losses, 1):
        if step % 10 == 0 or step == len(result.losses):
            print(f"step {step} loss {loss:.4f}")
    print(f"answer accuracy {result.answer_accuracy:.3f}")
    return result


if __name__ == "__main__":
    main()
