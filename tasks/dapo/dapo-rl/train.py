"""Train the tiny policy on the toy task with DAPO.

    python train.py --steps 10 [--eps-high 0.28] [--buffer-len 4]
"""
from __future__ import annotations

import argparse

import torch

from dapo.config import DAPOConfig
from dapo.data import ModularSumTask, vocab_size
from dapo.policy import TinyPolicy
from dapo.trainer import DAPOTrainer, StepStats


def build(cfg: DAPOConfig) -> DAPOTrainer:
    """Policy, task and trainer for `cfg`, seeded."""
    torch.manual_seed(cfg.seed)
    policy = TinyPolicy(vocab_size(cfg.num_digits), cfg.hidden_size)
    task = ModularSumTask(cfg.num_digits, cfg.prompt_len, seed=cfg.seed)
    return DAPOTrainer(policy, task, cfg)


def train(cfg: DAPOConfig, steps: int, log: bool = True) -> list[StepStats]:
    """Run `steps` DAPO steps; returns the stats of each."""
    trainer = build(cfg)
    history = []
    for step in range(1, steps + 1):
        stats = trainer.step()
        history.append(stats)
        if log:
            print(f"step {step}: loss {sum(stats.losses) / len(stats.losses):+.4f} rounds {stats.rounds} "
                  f"acc {stats.accuracy:.3f} reward {stats.mean_reward:+.3f} len {stats.mean_length:.2f}")
    return history


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--eps-low", type=float, default=DAPOConfig.clip_eps_low)
    parser.add_argument("--eps-high", type=float, default=DAPOConfig.clip_eps_high)
    parser.add_argument("--buffer-len", type=int, default=DAPOConfig.overlong_buffer_len)
    parser.add_argument("--seed", type=int, default=DAPOConfig.seed)
    args = parser.parse_args(argv)
    cfg = DAPOConfig(clip_eps_low=args.eps_low, clip_eps_high=args.eps_high,
                     overlong_buffer_len=args.buffer_len, seed=args.seed)
    train(cfg, args.steps)


if __name__ == "__main__":
    main()
