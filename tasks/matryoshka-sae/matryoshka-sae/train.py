"""Train a Matryoshka BatchTopK SAE on synthetic hierarchical activations.

    python train.py --steps 300 [--k 4] [--groups 4,12,32]
"""
from __future__ import annotations

import argparse

import torch

from matryoshka.config import SAEConfig, TrainConfig
from matryoshka.data import ActivationStream, HierarchicalFeatures
from matryoshka.sae import LossTerms, MatryoshkaSAE
from matryoshka.trainer import Trainer


def build(sae_cfg: SAEConfig, train_cfg: TrainConfig, n_parents: int = 4, n_children: int = 3) -> Trainer:
    """SAE, activation stream and trainer, all seeded from `train_cfg.seed`."""
    source = HierarchicalFeatures(sae_cfg.d_model, n_parents, n_children, seed=train_cfg.seed)
    stream = ActivationStream(source, dtype=getattr(torch, sae_cfg.dtype), seed=train_cfg.seed + 1)
    sae = MatryoshkaSAE(sae_cfg, generator=torch.Generator().manual_seed(train_cfg.seed + 2))
    return Trainer(sae, stream, train_cfg)


def train(sae_cfg: SAEConfig, train_cfg: TrainConfig, log_every: int = 0) -> tuple[Trainer, list[LossTerms]]:
    """Run `train_cfg.steps` steps; returns the trainer and the loss terms of every step."""
    trainer = build(sae_cfg, train_cfg)
    history = []
    for step in range(train_cfg.steps):
        terms = trainer.step()
        history.append(terms)
        if log_every and (step + 1) % log_every == 0:
            errors = " ".join(f"{float(e):.4f}" for e in terms.prefix_errors)
            print(f"step {step + 1}: loss {float(terms.total):.4f} nested errors [{errors}] "
                  f"aux {float(terms.aux):.4f} threshold {float(trainer.sae.threshold):.4f}")
    return trainer, history


def parse_groups(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(","))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=TrainConfig.steps)
    parser.add_argument("--k", type=int, default=SAEConfig.k)
    parser.add_argument("--groups", type=parse_groups, default=SAEConfig.group_sizes)
    parser.add_argument("--seed", type=int, default=TrainConfig.seed)
    args = parser.parse_args(argv)
    sae_cfg = SAEConfig(k=args.k, group_sizes=args.groups)
    train_cfg = TrainConfig(steps=args.steps, seed=args.seed)
    train(sae_cfg, train_cfg, log_every=max(1, args.steps // 10))


if __name__ == "__main__":
    main()
