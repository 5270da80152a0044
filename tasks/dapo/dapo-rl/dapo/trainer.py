"""The DAPO trainer: generation rounds, dynamic sampling, advantages and clipped policy updates."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from dapo.algorithm import dapo_policy_loss, dynamic_sampling, group_advantages, shaped_rewards
from dapo.config import DAPOConfig
from dapo.data import ModularSumTask, is_equivalent
from dapo.policy import TinyPolicy
from dapo.rollout import RolloutBatch


@dataclass(frozen=True)
class StepStats:
    """What one training step did."""

    losses: list[float]  # the loss of every gradient update, in order
    rounds: int  # generation rounds used to fill the batch
    accuracy: float  # share of correct responses in the training batch
    mean_reward: float
    mean_length: float


class DAPOTrainer:
    """Runs Algorithm 1 on the toy task: one `step` is one rollout step with its policy updates."""

    def __init__(self, policy: TinyPolicy, task: ModularSumTask, config: DAPOConfig) -> None:
        self.policy = policy
        self.task = task
        self.config = config
        self.optimizer = torch.optim.Adam(policy.parameters(), lr=config.lr)
        self.generator = torch.Generator().manual_seed(config.seed)
        self.rounds = 0

    @torch.no_grad()
    def sample_round(self) -> RolloutBatch:
        """One generation round from the current policy: G responses to each of `prompts_per_round` questions."""
        cfg, n, g = self.config, self.config.prompts_per_round, self.config.group_size
        prompts, answers = self.task.sample(n)
        flat_prompts = prompts.repeat_interleave(g, dim=0)
        responses, lengths = self.policy.sample(flat_prompts, cfg.max_response_len, self.generator)
        old_logprobs = self.policy.token_logprobs(flat_prompts, responses, lengths)
        correct = is_equivalent(responses, lengths, answers.repeat_interleave(g))
        rewards = shaped_rewards(correct, lengths, cfg.max_response_len, cfg.overlong_buffer_len)
        self.rounds += 1
        return RolloutBatch(
            prompts=prompts,
            answers=answers,
            responses=responses.view(n, g, -1),
            lengths=lengths.view(n, g),
            old_logprobs=old_logprobs.view(n, g, -1),
            correct=correct.view(n, g),
            rewards=rewards.view(n, g),
        )

    def policy_logprobs(self, batch: RolloutBatch) -> torch.Tensor:
        """log pi_theta of every response token of `batch` under the current policy: (N, G, T)."""
        n, g, t = batch.responses.shape
        flat_prompts = batch.prompts.repeat_interleave(g, dim=0)
        logprobs = self.policy.token_logprobs(flat_prompts, batch.responses.view(n * g, t), batch.lengths.view(-1))
        return logprobs.view(n, g, t)

    def step(self) -> StepStats:
        """Fill a batch by dynamic sampling, then `updates_per_step` passes of mini-batch updates on it."""
        cfg = self.config
        rounds_before = self.rounds
        batch = dynamic_sampling(self.sample_round, cfg.train_groups, cfg.max_sampling_rounds)
        advantages = group_advantages(batch.rewards, cfg.adv_eps, cfg.adv_unbiased_std)
        losses = []
        for _ in range(cfg.updates_per_step):
            for index in batch.minibatches(cfg.minibatch_groups):
                minibatch = batch.select(index)
                loss = dapo_policy_loss(
                    self.policy_logprobs(minibatch), minibatch.old_logprobs, advantages[index],
                    minibatch.response_mask(), cfg.clip_eps_low, cfg.clip_eps_high,
                )
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                losses.append(loss.item())
        return StepStats(
            losses=losses,
            rounds=self.rounds - rounds_before,
            accuracy=batch.correct.float().mean().item(),
            mean_reward=batch.rewards.mean().item(),
            mean_length=batch.lengths.float().mean().item(),
        )
