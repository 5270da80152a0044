"""The reinforcement-learning algorithm: reward shaping, the policy-optimisation loss and update, one training
iteration, and problem sampling."""
from __future__ import annotations

import math
from typing import Literal

import torch

from kimi.config import ObjectiveConfig, TrainConfig
from kimi.data import ProblemSet, response_mask
from kimi.policy import ToyPolicy
from kimi.rollout import RolloutBatch, collect
from kimi.trainer import IterationStats, draw_problems

LogZEstimate = Literal["mean_reward", "log_mean_exp"]


def length_penalty(lengths: torch.Tensor, correct: torch.Tensor, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The length reward of each sampled response.

    Args:
        lengths: (N, k) integer tensor, the number of tokens of each of the k responses to each of N problems.
        correct: (N, k) bool tensor, whether each response was verified correct.
        dtype: floating dtype of the result.

    Returns:
        (N, k) tensor of `dtype`.

    Raises:
        ValueError: if the shapes differ or are not 2-D.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def shaped_rewards(
    batch: RolloutBatch, cfg: ObjectiveConfig, iteration: int, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """The reward of each response of `batch` that the objective is trained on at `iteration` (from 0).

    Returns:
        (N, k) tensor of `dtype`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def log_partition(rewards: torch.Tensor, tau: float, estimate: LogZEstimate) -> torch.Tensor:
    """Estimate of tau log Z for each problem from the rewards of its k sampled responses.

    Args:
        rewards: (N, k) floating tensor.
        tau: the regularisation strength, > 0.
        estimate: which estimate (see `ObjectiveConfig.log_z_estimate`).

    Returns:
        (N,) tensor of the rewards' dtype.

    Raises:
        ValueError: for tau <= 0, an unknown estimate, or rewards that are not 2-D with k >= 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def mirror_descent_loss(
    logprobs: torch.Tensor, batch: RolloutBatch, rewards: torch.Tensor, cfg: ObjectiveConfig
) -> torch.Tensor:
    """The policy-optimisation loss of one iteration on a batch of rollouts.

    Args:
        logprobs: (N, k, T) floating tensor, log pi_theta of every response token under the policy being trained
            (differentiable); values past each response's end are ignored.
        batch: the rollouts, sampled from the iteration's reference policy.
        rewards: (N, k) rewards of the responses (as `shaped_rewards` returns them).
        cfg: tau and the log Z estimate.

    Returns:
        Scalar tensor of logprobs' dtype.

    Raises:
        ValueError: if the shapes of logprobs, rewards and the batch disagree.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def mirror_descent_update(
    policy: ToyPolicy, batch: RolloutBatch, rewards: torch.Tensor, cfg: TrainConfig
) -> list[float]:
    """The policy update of one iteration, on rollouts sampled from the iteration's reference policy.

    Args:
        policy: the policy being trained (updated in place); at entry it is the policy that sampled `batch`.
        batch: the iteration's rollouts.
        rewards: (N, k) rewards of the responses (as `shaped_rewards` returns them).
        cfg: the run's configuration.

    Returns:
        The loss before each gradient step, as Python floats (cfg.inner_steps of them).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def rl_iteration(
    cfg: TrainConfig,
    policy: ToyPolicy,
    problems: ProblemSet,
    sampler: PrioritizedSampler,
    iteration: int,
    generator: torch.Generator,
) -> IterationStats:
    """Iteration `iteration` (from 0) of the RL training: the current policy is the reference of this iteration.

    Args:
        cfg: the run's configuration.
        policy: the policy; trained in place.
        problems: the problem set.
        sampler: the success-rate bookkeeping over `problems`; records this iteration's outcomes.
        iteration: the iteration's index, from 0.
        generator: the source of every random draw of the iteration.

    Returns:
        What the iteration did.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


class PrioritizedSampler:
    """Prioritised sampling of training problems by their success rates, and the bookkeeping behind them.

    Args:
        num_problems: M, the size of the problem set (problems are indexed 0..M-1).

    Raises:
        ValueError: if num_problems < 1.
    """

    def __init__(self, num_problems: int) -> None:
        # TODO: implement (see the method description).
        raise NotImplementedError

    def update(self, problem_ids: torch.Tensor, correct: torch.Tensor) -> None:
        """Record the verified outcomes of one batch of rollouts.

        Args:
            problem_ids: (N,) long, the problem of each row (the same problem may appear in several rows).
            correct: (N, k) bool, the verdict of each of the k responses of each row.

        Raises:
            ValueError: if the shapes disagree or an id is outside 0..M-1 (nothing is recorded then).
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def success_rates(self) -> torch.Tensor:
        """(M,) float64: s_i, the fraction of the recorded responses to problem i that were correct (0 for a
        problem with none recorded)."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def probabilities(self, pool: torch.Tensor | None = None) -> torch.Tensor:
        """(M,) float64: the probability of drawing each problem; 0 outside `pool`.

        Args:
            pool: (P,) long indices of the problems that may be drawn (distinct); None for all problems.

        Raises:
            ValueError: if the pool is empty or out of range, or no problem of the pool can be drawn.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError

    def sample(self, n: int, generator: torch.Generator, pool: torch.Tensor | None = None) -> torch.Tensor:
        """(n,) long: n problem ids drawn independently (with replacement) with `probabilities(pool)`."""
        # TODO: implement (see the method description).
        raise NotImplementedError


    def state_dict(self) -> dict[str, torch.Tensor]:
        """The sampler's state as tensors (for checkpoints)."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        """Restore a state that `state_dict` returned (of a sampler over the same number of problems).

        Raises:
            ValueError: if the state belongs to a sampler over another number of problems.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError
