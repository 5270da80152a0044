"""GSPO's algorithm: group advantages, the policy-optimisation losses (GSPO, GSPO-token and the token-level
GRPO baseline) and the policy updates of one iteration on a rollout batch.

All losses take per-token log-probabilities laid out as (N, G, T): N queries, G responses per query, T token
slots, with a boolean mask marking the real tokens of each response (padding after its end). They return a
scalar loss to minimise (the negated objective).
"""
from __future__ import annotations

from collections.abc import Callable

import torch

from gspo.config import GSPOConfig
from gspo.rollout import RolloutBatch


def masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Mean of `values` over the last axis, counting only the positions where `mask` is True: (...)."""
    kept = torch.where(mask, values, torch.zeros_like(values))
    return kept.sum(dim=-1) / mask.sum(dim=-1).to(values.dtype)


def _check_layout(logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor) -> None:
    if logprobs.shape != old_logprobs.shape or logprobs.shape != mask.shape:
        raise ValueError(f"logprobs {tuple(logprobs.shape)}, old_logprobs {tuple(old_logprobs.shape)} and mask "
                         f"{tuple(mask.shape)} must have the same shape")
    if mask.dtype != torch.bool:
        raise ValueError("mask must be a bool tensor")


def grpo_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    clip_eps: float,
) -> torch.Tensor:
    """The token-level GRPO baseline: minus the clipped surrogate with per-token importance ratios.

    logprobs: (N, G, T) log pi_theta of each token (carries the gradient); old_logprobs: (N, G, T) log pi_old;
    advantages: (N, G), one per response; mask: (N, G, T) bool. Returns a scalar.
    """
    _check_layout(logprobs, old_logprobs, mask)
    ratio = torch.exp(logprobs - old_logprobs)
    adv = advantages.unsqueeze(-1)
    surrogate = torch.minimum(ratio * adv, ratio.clamp(1.0 - clip_eps, 1.0 + clip_eps) * adv)
    return -masked_mean(surrogate, mask).mean()


def group_advantages(rewards: torch.Tensor, eps: float = 1e-6, unbiased: bool = True) -> torch.Tensor:
    """Advantages of the responses of each group, from their rewards.

    Args:
        rewards: (N, G) float, the reward of each of the G responses to each of N queries.
        eps: added to the group standard deviation.
        unbiased: whether the group standard deviation is Bessel-corrected.

    Returns:
        (N, G) tensor of rewards' dtype.

    Raises:
        ValueError: if `rewards` is not 2-D or a group has fewer than two responses.
    """
    if rewards.dim() != 2 or rewards.shape[1] < 2:
        raise ValueError(f"rewards must be (N, G) with G >= 2, got {tuple(rewards.shape)}")
    mean = rewards.mean(dim=1, keepdim=True)
    std = rewards.std(dim=1, keepdim=True, unbiased=unbiased)
    return (rewards - mean) / (std + eps)


def sequence_log_ratio(logprobs: torch.Tensor, old_logprobs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """log s_i(theta): the logarithm of the sequence-level importance ratio of each response.

    Args:
        logprobs: (..., T) log pi_theta of each token; old_logprobs: (..., T) log pi_old; mask: (..., T) bool,
            True at the tokens of each response (at least one per response). Values at padded slots are
            arbitrary.

    Returns:
        (...) tensor of logprobs' dtype, differentiable with respect to `logprobs`.

    Raises:
        ValueError: if the three shapes differ or `mask` is not bool.
    """
    _check_layout(logprobs, old_logprobs, mask)
    diff = torch.where(mask, logprobs - old_logprobs, torch.zeros_like(logprobs))
    return diff.sum(dim=-1) / mask.sum(dim=-1).to(logprobs.dtype)


def gspo_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
) -> torch.Tensor:
    """The GSPO loss: minus the GSPO objective on a batch of groups.

    Args:
        logprobs: (N, G, T) log pi_theta of each token (carries the gradient).
        old_logprobs: (N, G, T) log pi_old of each token, under the policy that sampled the responses.
        advantages: (N, G), one per response.
        mask: (N, G, T) bool, True at the tokens of each response.
        eps_low, eps_high: the left and right clipping ranges.

    Returns:
        A scalar tensor of logprobs' dtype.

    Raises:
        ValueError: if the shapes of logprobs, old_logprobs and mask differ, or advantages is not (N, G).
    """
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("advantages must hold one value per response")
    ratio = torch.exp(sequence_log_ratio(logprobs, old_logprobs, mask))
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    return -torch.minimum(ratio * advantages, clipped * advantages).mean()


def clip_fraction(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
) -> torch.Tensor:
    """The fraction of the batch's tokens that GSPO clips.

    Args:
        logprobs, old_logprobs, advantages, mask, eps_low, eps_high: as for `gspo_loss`.

    Returns:
        A scalar tensor of logprobs' dtype, in [0, 1].

    Raises:
        ValueError: as `gspo_loss`.
    """
    if advantages.shape != logprobs.shape[:-1]:
        raise ValueError("advantages must hold one value per response")
    ratio = torch.exp(sequence_log_ratio(logprobs.detach(), old_logprobs, mask))
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high) * advantages < ratio * advantages
    lengths = mask.sum(dim=-1)
    return (lengths * clipped).sum().to(logprobs.dtype) / lengths.sum().to(logprobs.dtype)


def gspo_token_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
) -> torch.Tensor:
    """The GSPO-token loss: minus the GSPO-token objective, with one advantage per token.

    Args:
        logprobs: (N, G, T) log pi_theta of each token (carries the gradient).
        old_logprobs: (N, G, T) log pi_old of each token, under the policy that sampled the responses.
        advantages: (N, G, T), one per token (values at padded slots are ignored).
        mask: (N, G, T) bool, True at the tokens of each response.
        eps_low, eps_high: the left and right clipping ranges.

    Returns:
        A scalar tensor of logprobs' dtype.

    Raises:
        ValueError: if the shapes of logprobs, old_logprobs, advantages and mask differ.
    """
    if advantages.shape != logprobs.shape:
        raise ValueError("advantages must hold one value per token")
    log_s = sequence_log_ratio(logprobs, old_logprobs, mask).detach()
    ratio = torch.exp(log_s.unsqueeze(-1) + logprobs - logprobs.detach())
    clipped = ratio.clamp(1.0 - eps_low, 1.0 + eps_high)
    surrogate = torch.minimum(ratio * advantages, clipped * advantages)
    return -masked_mean(surrogate, mask).mean()


def policy_loss(logprobs: torch.Tensor, batch: RolloutBatch, advantages: torch.Tensor,
                config: GSPOConfig) -> torch.Tensor:
    """The loss selected by `config.loss_type` on a batch of groups.

    Args:
        logprobs: (N, G, T) log pi_theta of the response tokens of `batch` under the current policy.
        batch: the groups, with their responses' old log-probabilities and lengths.
        advantages: (N, G), one per response of `batch`.
        config: the run's configuration (loss type and clipping ranges).

    Returns:
        A scalar tensor of logprobs' dtype.

    Raises:
        ValueError: if `config.loss_type` is not "gspo", "gspo_token" or "grpo".
    """
    mask = batch.response_mask()
    if config.loss_type == "gspo":
        return gspo_loss(logprobs, batch.old_logprobs, advantages, mask, config.clip_eps_low, config.clip_eps_high)
    if config.loss_type == "gspo_token":
        token_advantages = advantages.unsqueeze(-1).expand_as(logprobs)
        return gspo_token_loss(logprobs, batch.old_logprobs, token_advantages, mask, config.clip_eps_low,
                               config.clip_eps_high)
    if config.loss_type == "grpo":
        return grpo_loss(logprobs, batch.old_logprobs, advantages, mask, config.grpo_clip_eps)
    raise ValueError(f"unknown loss_type {config.loss_type!r}")


def optimise_on_batch(
    batch: RolloutBatch,
    policy_logprobs: Callable[[RolloutBatch], torch.Tensor],
    optimizer: torch.optim.Optimizer,
    config: GSPOConfig,
) -> list[float]:
    """The policy updates of one iteration on a rollout batch sampled from the old policy.

    Args:
        batch: the rollout batch (N groups), sampled by the old policy, with its rewards.
        policy_logprobs: maps a RolloutBatch to the (N', G, T) log pi_theta of its response tokens under the
            current policy (differentiable with respect to the policy's parameters).
        optimizer: the optimiser of the policy's parameters.
        config: the run's configuration.

    Returns:
        The loss value of every gradient update, in the order of the updates.
    """
    advantages = group_advantages(batch.rewards, config.adv_eps, config.adv_unbiased_std)
    losses = []
    for _ in range(config.updates_per_step):
        for index in batch.minibatches(config.minibatch_groups):
            minibatch = batch.select(index)
            loss = policy_loss(policy_logprobs(minibatch), minibatch, advantages[index], config)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses
