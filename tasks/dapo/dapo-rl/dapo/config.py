"""Hyper-parameters of a DAPO run on the toy task."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DAPOConfig:
    """Everything a run needs; the defaults run a few steps on CPU in seconds."""

    # toy task (dapo/data.py)
    num_digits: int = 5  # answers are digits 0..num_digits-1
    prompt_len: int = 3  # digits per question
    # policy (dapo/policy.py)
    hidden_size: int = 32
    # rollout
    group_size: int = 8  # G: responses sampled for each question
    prompts_per_round: int = 6  # questions drawn in one generation round
    train_groups: int = 4  # N: groups (questions) in one training batch
    max_sampling_rounds: int = 10  # generation rounds allowed to fill one training batch
    max_response_len: int = 12  # L_max: responses are cut at this many tokens
    overlong_buffer_len: int = 4  # L_cache: the soft punishment interval before L_max
    # objective
    clip_eps_low: float = 0.2  # epsilon_low
    clip_eps_high: float = 0.28  # epsilon_high
    adv_eps: float = 1e-6  # added to the group standard deviation of the rewards
    adv_unbiased_std: bool = True  # Bessel-corrected group standard deviation
    # optimisation
    lr: float = 1e-2
    updates_per_step: int = 2  # passes over each training batch
    minibatch_groups: int = 2  # groups per gradient update
    seed: int = 0
