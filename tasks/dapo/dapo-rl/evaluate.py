"""Sampled accuracy and response length of a policy trained for a few DAPO steps, on fresh questions.

    python evaluate.py --train-steps 10 --questions 64
"""
from __future__ import annotations

import argparse

import torch

from dapo.config import DAPOConfig
from dapo.data import ModularSumTask, is_equivalent
from dapo.policy import TinyPolicy
from train import build


@torch.no_grad()
def evaluate(policy: TinyPolicy, cfg: DAPOConfig, questions: int, seed: int = 1234) -> dict[str, float]:
    """One sampled response per question: accuracy, mean length and share cut at the length limit."""
    task = ModularSumTask(cfg.num_digits, cfg.prompt_len, seed=seed)
    prompts, answers = task.sample(questions)
    responses, lengths = policy.sample(prompts, cfg.max_response_len, torch.Generator().manual_seed(seed))
    correct = is_equivalent(responses, lengths, answers)
    truncated = lengths == cfg.max_response_len
    return {"accuracy": correct.float().mean().item(), "mean_length": lengths.float().mean().item(),
            "truncated": truncated.float().mean().item()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train-steps", type=int, default=10)
    parser.add_argument("--questions", type=int, default=64)
    args = parser.parse_args(argv)
    cfg = DAPOConfig()
    trainer = build(cfg)
    print("before", evaluate(trainer.policy, cfg, args.questions))
    for _ in range(args.train_steps):
        trainer.step()
    print("after", evaluate(trainer.policy, cfg, args.questions))


if __name__ == "__main__":
    main()
