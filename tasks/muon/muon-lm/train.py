"""Train the tiny language model for a few steps with Muon (the Moonlight recipe) or the AdamW baseline.

    python train.py --optimizer muon --steps 20
    python train.py --optimizer adamw --steps 20
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, replace

import torch

from moonlet.config import ModelConfig, OptimConfig
from moonlet.data import batches
from moonlet.grouping import param_groups
from moonlet.model import TinyLM
from moonlet.muon import Muon
from moonlet.schedule import scheduler


@dataclass
class Run:
    """A model with its optimizer and learning-rate schedule, ready to train."""

    model: TinyLM
    optimizer: torch.optim.Optimizer
    schedule: torch.optim.lr_scheduler.LambdaLR
    cfg: OptimConfig


def build_optimizer(model: TinyLM, cfg: OptimConfig) -> torch.optim.Optimizer:
    """Muon over the groups of `param_groups` (same lr and weight decay for both kinds), or plain AdamW."""
    if cfg.optimizer == "adamw":
        return torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=cfg.betas, eps=cfg.eps,
                                 weight_decay=cfg.weight_decay)
    return Muon(param_groups(model, cfg), lr=cfg.lr, weight_decay=cfg.weight_decay, momentum=cfg.momentum,
                nesterov=cfg.nesterov, ns_steps=cfg.ns_steps, rms_scale=cfg.rms_scale, betas=cfg.betas,
                eps=cfg.eps)


def build(model_cfg: ModelConfig, cfg: OptimConfig, seed: int = 0, dtype: torch.dtype = torch.float32) -> Run:
    """A freshly initialised model (seeded) in `dtype`, its optimizer and its schedule."""
    torch.manual_seed(seed)
    model = TinyLM(model_cfg).to(dtype)
    optimizer = build_optimizer(model, cfg)
    return Run(model, optimizer, scheduler(optimizer, cfg), cfg)


def train_step(run: Run, batch: torch.Tensor) -> float:
    """One optimisation step on one batch; returns the loss before the update."""
    run.optimizer.zero_grad(set_to_none=True)
    loss = run.model.loss(batch)
    loss.backward()
    if run.cfg.grad_clip is not None:
        torch.nn.utils.clip_grad_norm_(run.model.parameters(), run.cfg.grad_clip)
    run.optimizer.step()
    run.schedule.step()
    return loss.item()


def train(model_cfg: ModelConfig, cfg: OptimConfig, steps: int, batch_size: int = 8, seq_len: int = 16,
          seed: int = 0, dtype: torch.dtype = torch.float32) -> tuple[Run, list[float]]:
    """Train a fresh model for `steps` steps; return the run and the loss of every step."""
    run = build(model_cfg, cfg, seed, dtype)
    stream = batches(batch_size, seq_len, model_cfg.vocab_size, seed)
    losses = [train_step(run, next(stream)) for _ in range(steps)]
    return run, losses


def main(argv: list[str] | None = None) -> list[float]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--optimizer", default="muon", choices=["muon", "adamw"])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = OptimConfig(optimizer=args.optimizer, total_steps=args.steps)
    if args.lr is not None:
        cfg = replace(cfg, lr=args.lr)
    _, losses = train(ModelConfig(), cfg, args.steps, seed=args.seed)
    for step, loss in enumerate(losses, 1):
        if step % 5 == 0 or step == len(losses):
            print(f"step {step} loss {loss:.4f}")
    return losses


if __name__ == "__main__":
    main()
