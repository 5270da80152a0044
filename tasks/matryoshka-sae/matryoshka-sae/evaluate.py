"""Evaluate a Matryoshka SAE with its inference threshold: every nested dictionary's fidelity, and how well the
planted parent features are found among the first group's latents.

    python evaluate.py --steps 300 [--k 4] [--groups 4,12,32]
"""
from __future__ import annotations

import argparse
from itertools import accumulate

import torch

from matryoshka.config import SAEConfig, TrainConfig
from matryoshka.metrics import Metrics, best_cosine, metrics
from matryoshka.trainer import Trainer
from train import build, parse_groups


def evaluate(trainer: Trainer, n_sequences: int = 128) -> list[Metrics]:
    """Metrics of each nested dictionary (smallest first) on a fresh batch, the SAE in eval mode."""
    sae = trainer.sae
    x = trainer.stream.next_batch(n_sequences, trainer.cfg.max_len).tokens()
    sae.eval()
    with torch.no_grad():
        out = sae(x)
    sae.train()
    widths = list(accumulate(sae.cfg.group_sizes))
    return [metrics(x, x_hat, out.features[:, :width]) for width, x_hat in zip(widths, out.reconstructions, strict=True)]


def parents_found(trainer: Trainer) -> torch.Tensor:
    """(n_parents,) the best cosine of each parent feature with a decoder row of the first group."""
    source = trainer.stream.source
    return best_cosine(source.parent_directions(), trainer.sae.W_dec.detach()[: trainer.sae.cfg.group_sizes[0]])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=TrainConfig.steps)
    parser.add_argument("--k", type=int, default=SAEConfig.k)
    parser.add_argument("--groups", type=parse_groups, default=SAEConfig.group_sizes)
    args = parser.parse_args(argv)
    trainer = build(SAEConfig(k=args.k, group_sizes=args.groups), TrainConfig(steps=args.steps))
    trainer.run(args.steps)
    for i, m in enumerate(evaluate(trainer)):
        print(f"nested dictionary {i + 1}: {m}")
    print("inference threshold:", float(trainer.sae.threshold))
    print("parents in the first group (best cosine):", [round(float(c), 3) for c in parents_found(trainer)])


if __name__ == "__main__":
    main()
