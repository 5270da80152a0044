"""Configuration of the toy policy, the RL objective and the problem sampler."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True)
class PolicyConfig:
    """The toy policy."""

    hidden_size: int = 32
    """Width of the embedding and of the GRU."""
    max_response_len: int = 8
    """Longest response sampled, EOS included (the rollout budget)."""


@dataclass(frozen=True)
class ObjectiveConfig:
    """The policy-optimisation objective and the reward shaping."""

    tau: float = 0.5
    """Strength of the relative-entropy regulariser (tau of the paper)."""
    log_z_estimate: Literal["mean_reward", "log_mean_exp"] = "mean_reward"
    """How tau log Z is estimated from the k samples of a problem (Section 2.3.2 of the paper)."""
    length_penalty_weight: float = 0.2
    """Weight of the length reward added to the correctness reward."""
    length_warmup_iters: int = 2
    """Number of iterations, counted from 0, trained without the length reward."""


@dataclass(frozen=True)
class SamplerConfig:
    """Which problems each iteration trains on."""

    strategy: Literal["uniform", "curriculum", "prioritized"] = "prioritized"
    """uniform: every problem equally likely; curriculum: easy problems first; prioritized: by success rate."""
    curriculum_iters: int = 4
    """Iterations over which the curriculum opens up, one difficulty level at a time."""


@dataclass(frozen=True)
class TrainConfig:
    """One RL run."""

    policy: PolicyConfig = field(default_factory=PolicyConfig)
    objective: ObjectiveConfig = field(default_factory=ObjectiveConfig)
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    num_problems: int = 48
    """Size of the problem set."""
    problems_per_iter: int = 8
    """Problems drawn per iteration (with replacement)."""
    samples_per_problem: int = 4
    """k: responses sampled per problem."""
    iterations: int = 6
    """Policy-mirror-descent iterations."""
    inner_steps: int = 2
    """Gradient steps per iteration against the same reference policy."""
    lr: float = 3e-3
    """Learning rate of the Adam optimiser of the inner steps (a fresh optimiser at every iteration)."""
    seed: int = 0
    """Seed of every random draw."""
