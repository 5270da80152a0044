"""Train the toy policy with the RL recipe for a few iterations on random problems.

Usage: python train.py [--iterations N] [--strategy uniform|curriculum|prioritized]
"""
from __future__ import annotations

import argparse
from dataclasses import replace

import torch

from kimi.config import SamplerConfig, TrainConfig
from kimi.data import make_problems
from kimi.policy import ToyPolicy
from kimi.rl import PrioritizedSampler, rl_iteration
from kimi.trainer import IterationStats

LEVELS = 3


def run(
    cfg: TrainConfig, dtype: torch.dtype = torch.float32
) -> tuple[ToyPolicy, PrioritizedSampler, list[IterationStats]]:
    """Build the problems, the policy and the sampler from cfg.seed and run cfg.iterations iterations."""
    torch.manual_seed(cfg.seed)
    generator = torch.Generator().manual_seed(cfg.seed)
    problems = make_problems(cfg.num_problems, LEVELS, generator)
    policy = ToyPolicy(cfg.policy.hidden_size).to(dtype)
    sampler = PrioritizedSampler(len(problems))
    stats = [rl_iteration(cfg, policy, problems, sampler, it, generator) for it in range(cfg.iterations)]
    return policy, sampler, stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=TrainConfig.iterations)
    parser.add_argument("--strategy", choices=["uniform", "curriculum", "prioritized"], default="prioritized")
    args = parser.parse_args()
    cfg = replace(TrainConfig(), iterations=args.iterations, sampler=SamplerConfig(strategy=args.strategy))
    _, sampler, stats = run(cfg)
    for it, s in enumerate(stats):
        print(f"iter {it}: accuracy {s.accuracy:.3f} length {s.mean_length:.2f} reward {s.mean_reward:.3f} "
              f"loss {s.losses[0]:.4f} -> {s.losses[-1]:.4f}")
    print("mean success rate", float(sampler.success_rates().mean()))


if __name__ == "__main__":
    main()
