"""Train the tiny policy on the toy task with GSPO (or GSPO-token, or the GRPO baseline).

    python train.py --steps 10 [--loss gspo|gspo_token|grpo] [--eps-low 3e-4] [--eps-high 4e-4]
"""
from __future__ import annotations

import argparse

import torch

from gspo.config import GSPOConfig
from gspo.data import ModularSumTask, vocab_size
from gspo.policy import TinyPolicy
from gspo.trainer import GSPOTrainer, StepStats


def build(cfg: GSPOConfig) -> GSPOTrainer:
    """Policy, task and trainer for `cfg`, seeded."""
    torch.manual_seed(cfg.seed)
    policy = TinyPolicy(vocab_size(cfg.num_digits), cfg.hidden_size)
    task = ModularSumTask(cfg.num_digits, cfg.prompt_len, seed=cfg.seed)
    return GSPOTrainer(policy, task, cfg)


def train(cfg: GSPOConfig, steps: int, log: bool = True) -> list[StepStats]:
    """Run `steps` iterations; returns the stats of each."""
    trainer = build(cfg)
    history = []
    for step in range(1, steps + 1):
        stats = trainer.step()
        history.append(stats)
        if log:
            print(f"step {step}: loss {sum(stats.losses) / len(stats.losses):+.5f} acc {stats.accuracy:.3f} "
                  f"reward {stats.mean_reward:.3f} len {stats.mean_length:.2f} clipped {stats.clip_fraction:.3f}")
    return history


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--loss", default=GSPOConfig.loss_type, choices=["gspo", "gspo_token", "grpo"])
    parser.add_argument("--eps-low", type=float, default=GSPOConfig.clip_eps_low)
    parser.add_argument("--eps-high", type=float, default=GSPOConfig.clip_eps_high)
    parser.add_argument("--seed", type=int, default=GSPOConfig.seed)
    args = parser.parse_args(argv)
    cfg = GSPOConfig(loss_type=args.loss, clip_eps_low=args.eps_low, clip_eps_high=args.eps_high, seed=args.seed)
    train(cfg, args.steps)


if __name__ == "__main__":
    main()
