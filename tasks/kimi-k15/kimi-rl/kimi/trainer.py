"""Pieces of the training loop: which problems an iteration trains on, and what it reports."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from kimi.config import TrainConfig
from kimi.data import ProblemSet, curriculum_pool

if TYPE_CHECKING:
    from kimi.rl import PrioritizedSampler


@dataclass(frozen=True)
class IterationStats:
    """What one iteration did."""

    problem_ids: torch.Tensor
    """(N,) the problems drawn."""
    accuracy: float
    """Fraction of the sampled responses verified correct."""
    mean_length: float
    """Mean number of tokens of the sampled responses."""
    mean_reward: float
    """Mean shaped reward."""
    losses: list[float]
    """The loss before each inner gradient step."""


def draw_problems(
    cfg: TrainConfig, problems: ProblemSet, sampler: PrioritizedSampler, iteration: int, generator: torch.Generator
) -> torch.Tensor:
    """The problems of this iteration, by the configured strategy."""
    n = cfg.problems_per_iter
    if cfg.sampler.strategy == "uniform":
        return torch.randint(0, len(problems), (n,), generator=generator)
    if cfg.sampler.strategy == "curriculum":
        pool = curriculum_pool(problems, iteration, cfg.sampler.curriculum_iters)
        return pool[torch.randint(0, pool.numel(), (n,), generator=generator)]
    return sampler.sample(n, generator)
