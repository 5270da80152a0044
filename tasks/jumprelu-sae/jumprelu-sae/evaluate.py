"""L0, fraction of variance unexplained and dead features of a JumpReLU SAE, before and after training.

    python evaluate.py --steps 200 [--sparsity 1.0]
"""
from __future__ import annotations

import argparse

import torch

from jumprelu.config import SAEConfig, TrainConfig
from jumprelu.metrics import Metrics, metrics
from jumprelu.trainer import Trainer
from train import build


def evaluate(trainer: Trainer, batch_size: int = 2048) -> Metrics:
    """Metrics of the trainer's SAE on a fresh batch of its stream."""
    x = trainer.stream.next_batch(batch_size)
    with torch.no_grad():
        out = trainer.sae(x)
    return metrics(x, out.reconstruction, out.features)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=TrainConfig.steps)
    parser.add_argument("--sparsity", type=float, default=TrainConfig.sparsity_coefficient)
    args = parser.parse_args(argv)
    trainer = build(SAEConfig(), TrainConfig(steps=args.steps, sparsity_coefficient=args.sparsity))
    print("before:", evaluate(trainer))
    trainer.run(args.steps)
    print("after: ", evaluate(trainer))


if __name__ == "__main__":
    main()
