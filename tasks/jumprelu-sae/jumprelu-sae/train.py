"""Train a JumpReLU SAE on synthetic activations.

    python train.py --steps 200 [--sparsity 1.0] [--bandwidth 0.001] [--d-sae 64]
"""
from __future__ import annotations

import argparse

import torch

from jumprelu.config import SAEConfig, TrainConfig
from jumprelu.data import ActivationStream, ToyActivations
from jumprelu.sae import JumpReLUSAE, LossTerms
from jumprelu.trainer import Trainer


def build(sae_cfg: SAEConfig, train_cfg: TrainConfig, n_latents: int = 48) -> Trainer:
    """SAE, activation stream and trainer, all seeded from `train_cfg.seed`."""
    source = ToyActivations(sae_cfg.d_model, n_latents, seed=train_cfg.seed)
    stream = ActivationStream(source, dtype=getattr(torch, sae_cfg.dtype), seed=train_cfg.seed + 1)
    sae = JumpReLUSAE(sae_cfg, generator=torch.Generator().manual_seed(train_cfg.seed + 2))
    return Trainer(sae, stream, train_cfg)


def train(sae_cfg: SAEConfig, train_cfg: TrainConfig, log_every: int = 0) -> tuple[Trainer, list[LossTerms]]:
    """Run `train_cfg.steps` steps; returns the trainer and the loss terms of every step."""
    trainer = build(sae_cfg, train_cfg)
    history = []
    for step in range(train_cfg.steps):
        terms = trainer.step()
        history.append(terms)
        if log_every and (step + 1) % log_every == 0:
            print(f"step {step + 1}: loss {float(terms.total):.4f} recon {float(terms.reconstruction):.4f} "
                  f"L0 {float(terms.l0):.2f}")
    return trainer, history


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=TrainConfig.steps)
    parser.add_argument("--sparsity", type=float, default=TrainConfig.sparsity_coefficient)
    parser.add_argument("--bandwidth", type=float, default=SAEConfig.bandwidth)
    parser.add_argument("--d-sae", type=int, default=SAEConfig.d_sae)
    parser.add_argument("--seed", type=int, default=TrainConfig.seed)
    args = parser.parse_args(argv)
    sae_cfg = SAEConfig(d_sae=args.d_sae, bandwidth=args.bandwidth)
    train_cfg = TrainConfig(steps=args.steps, sparsity_coefficient=args.sparsity, seed=args.seed)
    train(sae_cfg, train_cfg, log_every=max(1, args.steps // 10))


if __name__ == "__main__":
    main()
