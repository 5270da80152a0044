"""The DAPO algorithm: rewards with overlong shaping, group advantages, dynamic sampling and the policy loss."""
from __future__ import annotations

from collections.abc import Callable

import torch

from dapo.rollout import RolloutBatch


def overlong_penalty(lengths: torch.Tensor, max_len: int, buffer_len: int) -> torch.Tensor:
    """The length-aware penalty of Soft Overlong Punishment (Section 3.4, Eq. (11)).

    Args:
        lengths: integer tensor of any shape: |y|, the number of tokens of each response.
        max_len: L_max.
        buffer_len: L_cache.

    Returns:
        Tensor of the shape of `lengths` and dtype `torch.get_default_dtype()`: the length reward of each
        response.

    Raises:
        ValueError: unless 0 < buffer_len <= max_len.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def shaped_rewards(correct: torch.Tensor, lengths: torch.Tensor, max_len: int, buffer_len: int) -> torch.Tensor:
    """The reward of each response: the rule-based reward (Section 2.4) with Overlong Reward Shaping (Section 3.4).

    Args:
        correct: bool tensor of any shape: whether each response's answer is equivalent to the ground truth.
        lengths: integer tensor of the same shape: |y| of each response.
        max_len: L_max.
        buffer_len: L_cache.

    Returns:
        Tensor of the same shape and dtype `torch.get_default_dtype()`.

    Raises:
        ValueError: unless 0 < buffer_len <= max_len.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def group_advantages(rewards: torch.Tensor, eps: float = 1e-6, unbiased: bool = True) -> torch.Tensor:
    """The group-relative advantage of every response (Eq. (8)).

    Args:
        rewards: (N, G) float tensor: R_i of the G responses to each of N questions.
        eps: added to each group's standard deviation (the denominator is std + eps).
        unbiased: whether the group standard deviation is Bessel-corrected (divides by G - 1) or not
            (divides by G).

    Returns:
        (N, G) tensor of the dtype of `rewards`: the advantage of each response, shared by all its tokens.

    Raises:
        ValueError: if `rewards` is not 2-D or G < 2.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def dynamic_sampling(sample_round: Callable[[], RolloutBatch], batch_size: int, max_rounds: int) -> RolloutBatch:
    """Fill one training batch by dynamic sampling (Section 3.2, Algorithm 1).

    Args:
        sample_round: draws one generation round (G responses to each of some fresh questions, with their
            correctness and rewards) from the current policy.
        batch_size: N, the number of groups the training batch holds.
        max_rounds: the most calls to `sample_round` allowed.

    Returns:
        A RolloutBatch of exactly `batch_size` groups: the first ones kept, in the order they were sampled.

    Raises:
        RuntimeError: if `max_rounds` rounds do not give `batch_size` groups.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def dapo_policy_loss(
    logprobs: torch.Tensor,
    old_logprobs: torch.Tensor,
    advantages: torch.Tensor,
    response_mask: torch.Tensor,
    eps_low: float,
    eps_high: float,
) -> torch.Tensor:
    """The DAPO policy loss of a batch of groups (Eq. (7)).

    Args:
        logprobs: (N, G, T) float: log pi_theta(o_{i,t} | q, o_{i,<t}) under the policy being trained
            (differentiable).
        old_logprobs: (N, G, T) float: the same under pi_theta_old, the policy that sampled the responses.
        advantages: (N, G) float: the advantage of each response.
        response_mask: (N, G, T) bool: True at the |o_i| tokens of each response, False at padding. Every
            group has at least one token; values at padding are finite and arbitrary.
        eps_low: epsilon_low.
        eps_high: epsilon_high.

    Returns:
        0-dim tensor of the dtype of `logprobs`: the loss to minimise, minus the objective of Eq. (7), whose
        expectation over questions is taken as the mean over the N groups.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
