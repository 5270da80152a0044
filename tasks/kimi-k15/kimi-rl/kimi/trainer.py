"""One policy-mirror-descent iteration: draw problems, roll out, shape rewards, a few gradient steps."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from kimi.config import TrainConfig
from kimi.data import ProblemSet, curriculum_pool
from kimi.policy import ToyPolicy
from kimi.rl import PrioritizedSampler, mirror_descent_update, shaped_rewards
from kimi.rollout import collect


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


def rl_iteration(
    cfg: TrainConfig,
    policy: ToyPolicy,
    problems: ProblemSet,
    sampler: PrioritizedSampler,
    iteration: int,
    generator: torch.Generator,
) -> IterationStats:
    """One iteration of online policy mirror descent: the current policy is the reference of this iteration."""
    ids = draw_problems(cfg, problems, sampler, iteration, generator)
    batch = collect(policy, problems, ids, cfg.samples_per_problem, cfg.policy.max_response_len, generator)
    sampler.update(batch.problem_ids, batch.correct)
    dtype = next(policy.parameters()).dtype
    rewards = shaped_rewards(batch, cfg.objective, iteration, dtype)
    losses = mirror_descent_update(policy, batch, rewards, cfg)
    return IterationStats(
        problem_ids=ids,
        accuracy=float(batch.correct.float().mean()),
        mean_length=float(batch.lengths.float().mean()),
        mean_reward=float(rewards.mean()),
        losses=losses,
    )
