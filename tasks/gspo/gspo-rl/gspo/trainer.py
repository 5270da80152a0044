"""The GSPO trainer: rollouts from the current policy, rewards, and the policy updates of each iteration."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from gspo.algorithm import clip_fraction, group_advantages, optimise_on_batch
from gspo.config import GSPOConfig
from gspo.data import ModularSumTask, is_equivalent, outcome_reward
from gspo.policy import TinyPolicy
from gspo.rollout import RolloutBatch


@dataclass(frozen=True)
class StepStats:
    """What one training iteration did."""

    losses: list[float]  # the loss of every gradient update, in order
    accuracy: float  # share of correct responses in the rollout batch
    mean_reward: float
    mean_length: float
    clip_fraction: float  # share of the batch's tokens that GSPO's clipping excludes, under the updated policy


class GSPOTrainer:
    """One `step` samples a rollout batch from the current (old) policy and runs the policy updates on it."""

    def __init__(self, policy: TinyPolicy, task: ModularSumTask, config: GSPOConfig) -> None:
        self.policy = policy
        self.task = task
        self.config = config
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=config.lr)
        self.generator = torch.Generator().manual_seed(config.seed)

    @torch.no_grad()
    def sample_rollouts(self) -> RolloutBatch:
        """G responses from the current policy to each of `queries_per_step` new queries, with their rewards."""
        cfg, n, g = self.config, self.config.queries_per_step, self.config.group_size
        prompts, answers = self.task.sample(n)
        flat_prompts = prompts.repeat_interleave(g, dim=0)
        responses, lengths = self.policy.sample(flat_prompts, cfg.max_response_len, self.generator)
        old_logprobs = self.policy.token_logprobs(flat_prompts, responses, lengths)
        correct = is_equivalent(responses, lengths, answers.repeat_interleave(g))
        return RolloutBatch(
            prompts=prompts,
            answers=answers,
            responses=responses.view(n, g, -1),
            lengths=lengths.view(n, g),
            old_logprobs=old_logprobs.view(n, g, -1),
            correct=correct.view(n, g),
            rewards=outcome_reward(correct).view(n, g),
        )

    def policy_logprobs(self, batch: RolloutBatch) -> torch.Tensor:
        """log pi_theta of every response token of `batch` under the current policy: (N, G, T)."""
        n, g, t = batch.responses.shape
        flat_prompts = batch.prompts.repeat_interleave(g, dim=0)
        logprobs = self.policy.token_logprobs(flat_prompts, batch.responses.view(n * g, t), batch.lengths.view(-1))
        return logprobs.view(n, g, t)

    def step(self) -> StepStats:
        """Sample a rollout batch, then update the policy on it."""
        batch = self.sample_rollouts()
        cfg = self.config
        losses = optimise_on_batch(batch, self.policy_logprobs, self.optimizer, cfg)
        with torch.no_grad():
            advantages = group_advantages(batch.rewards, cfg.adv_eps, cfg.adv_unbiased_std)
            clipped = clip_fraction(self.policy_logprobs(batch), batch.old_logprobs, advantages,
                                    batch.response_mask(), cfg.clip_eps_low, cfg.clip_eps_high)
        return StepStats(
            losses=losses,
            accuracy=batch.correct.float().mean().item(),
            mean_reward=batch.rewards.mean().item(),
            mean_length=batch.lengths.float().mean().item(),
            clip_fraction=clipped.item(),
        )
