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
    if lengths.dim() != 2 or lengths.shape != correct.shape:
        raise ValueError(f"lengths {tuple(lengths.shape)} and correct {tuple(correct.shape)} must be equal (N, k)")
    lens = lengths.to(dtype)
    shortest = lens.min(dim=1, keepdim=True).values
    longest = lens.max(dim=1, keepdim=True).values
    span = longest - shortest
    same = span == 0
    lam = 0.5 - (lens - shortest) / torch.where(same, torch.ones_like(span), span)
    reward = torch.where(correct.bool(), lam, lam.clamp(max=0.0))
    return reward.masked_fill(same, 0.0)


def shaped_rewards(
    batch: RolloutBatch, cfg: ObjectiveConfig, iteration: int, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """The reward of each response of `batch` that the objective is trained on at `iteration` (from 0).

    Returns:
        (N, k) tensor of `dtype`.
    """
    reward = batch.correct.to(dtype)
    if iteration >= cfg.length_warmup_iters and cfg.length_penalty_weight != 0.0:
        reward = reward + cfg.length_penalty_weight * length_penalty(batch.lengths, batch.correct, dtype)
    return reward


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
    if tau <= 0:
        raise ValueError(f"tau must be positive, got {tau}")
    if rewards.dim() != 2 or rewards.shape[1] == 0:
        raise ValueError(f"rewards must be (N, k) with k >= 1, got {tuple(rewards.shape)}")
    if estimate == "mean_reward":
        return rewards.mean(dim=1)
    if estimate == "log_mean_exp":
        k = rewards.shape[1]
        return tau * (torch.logsumexp(rewards / tau, dim=1) - math.log(k))
    raise ValueError(f"unknown log Z estimate {estimate!r}")


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
    if logprobs.shape != batch.ref_logprobs.shape or rewards.shape != batch.lengths.shape:
        raise ValueError("logprobs, rewards and the batch disagree in shape")
    mask = response_mask(batch.lengths, logprobs.shape[-1])
    diff = (logprobs - batch.ref_logprobs.to(logprobs.dtype)).masked_fill(~mask, 0.0)
    log_ratio = diff.sum(dim=-1)
    r = rewards.to(logprobs.dtype)
    baseline = log_partition(r, cfg.tau, cfg.log_z_estimate).unsqueeze(1)
    residual = r - baseline - cfg.tau * log_ratio
    return residual.pow(2).mean()


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
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.lr)
    prompts = batch.prompts.unsqueeze(1).expand(-1, batch.samples_per_problem, -1)
    losses = []
    for _ in range(cfg.inner_steps):
        logprobs = policy.token_logprobs(prompts, batch.responses, batch.lengths)
        loss = mirror_descent_loss(logprobs, batch, rewards, cfg.objective)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
    return losses


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
    ids = draw_problems(cfg, problems, sampler, iteration, generator)
    batch = collect(policy, problems, ids, cfg.samples_per_problem, cfg.policy.max_response_len, generator)
    sampler.update(batch.problem_ids, batch.correct)
    rewards = shaped_rewards(batch, cfg.objective, iteration, next(policy.parameters()).dtype)
    losses = mirror_descent_update(policy, batch, rewards, cfg)
    return IterationStats(
        problem_ids=ids,
        accuracy=float(batch.correct.float().mean()),
        mean_length=float(batch.lengths.float().mean()),
        mean_reward=float(rewards.mean()),
        losses=losses,
    )


class PrioritizedSampler:
    """Prioritised sampling of training problems by their success rates, and the bookkeeping behind them.

    Args:
        num_problems: M, the size of the problem set (problems are indexed 0..M-1).

    Raises:
        ValueError: if num_problems < 1.
    """

    def __init__(self, num_problems: int) -> None:
        if num_problems < 1:
            raise ValueError(f"need at least one problem, got {num_problems}")
        self.num_problems = num_problems
        self.attempts = torch.zeros(num_problems, dtype=torch.float64)
        self.successes = torch.zeros(num_problems, dtype=torch.float64)

    def update(self, problem_ids: torch.Tensor, correct: torch.Tensor) -> None:
        """Record the verified outcomes of one batch of rollouts.

        Args:
            problem_ids: (N,) long, the problem of each row (the same problem may appear in several rows).
            correct: (N, k) bool, the verdict of each of the k responses of each row.

        Raises:
            ValueError: if the shapes disagree or an id is outside 0..M-1 (nothing is recorded then).
        """
        if problem_ids.dim() != 1 or correct.dim() != 2 or correct.shape[0] != problem_ids.shape[0]:
            raise ValueError("problem_ids must be (N,) and correct (N, k)")
        if problem_ids.numel() and (int(problem_ids.min()) < 0 or int(problem_ids.max()) >= self.num_problems):
            raise ValueError("problem id out of range")
        ids = problem_ids.long()
        self.attempts.index_add_(0, ids, torch.full((ids.numel(),), float(correct.shape[1]), dtype=torch.float64))
        self.successes.index_add_(0, ids, correct.to(torch.float64).sum(dim=1))

    def success_rates(self) -> torch.Tensor:
        """(M,) float64: s_i, the fraction of the recorded responses to problem i that were correct (0 for a
        problem with none recorded)."""
        return torch.where(self.attempts > 0, self.successes / self.attempts.clamp(min=1.0), 0.0)

    def probabilities(self, pool: torch.Tensor | None = None) -> torch.Tensor:
        """(M,) float64: the probability of drawing each problem; 0 outside `pool`.

        Args:
            pool: (P,) long indices of the problems that may be drawn (distinct); None for all problems.

        Raises:
            ValueError: if the pool is empty or out of range, or no problem of the pool can be drawn.
        """
        weights = 1.0 - self.success_rates()
        if pool is not None:
            if pool.numel() == 0 or int(pool.min()) < 0 or int(pool.max()) >= self.num_problems:
                raise ValueError("pool must be a non-empty set of problem ids")
            keep = torch.zeros(self.num_problems, dtype=torch.bool)
            keep[pool.long()] = True
            weights = weights.masked_fill(~keep, 0.0)
        total = weights.sum()
        if total <= 0:
            raise ValueError("every problem of the pool is always solved: nothing to draw")
        return weights / total

    def sample(self, n: int, generator: torch.Generator, pool: torch.Tensor | None = None) -> torch.Tensor:
        """(n,) long: n problem ids drawn independently (with replacement) with `probabilities(pool)`."""
        return torch.multinomial(self.probabilities(pool), n, replacement=True, generator=generator)


    def state_dict(self) -> dict[str, torch.Tensor]:
        """The sampler's state as tensors (for checkpoints)."""
        return {"attempts": self.attempts.clone(), "successes": self.successes.clone()}

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        """Restore a state that `state_dict` returned (of a sampler over the same number of problems).

        Raises:
            ValueError: if the state belongs to a sampler over another number of problems.
        """
        attempts, successes = state["attempts"], state["successes"]
        if attempts.shape != (self.num_problems,) or successes.shape != (self.num_problems,):
            raise ValueError("state of a sampler over another number of problems")
        self.attempts = attempts.to(torch.float64).clone()
        self.successes = successes.to(torch.float64).clone()
