"""Hyper-parameters of a GSPO run on the toy task."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GSPOConfig:
    """Everything a run needs; the defaults run a few steps on CPU in seconds."""

    # toy task (gspo/data.py)
    num_digits: int = 5  # answers are digits 0..num_digits-1
    prompt_len: int = 3  # digits per question
    # policy (gspo/policy.py)
    hidden_size: int = 32
    # rollout
    group_size: int = 6  # G: responses sampled for each query
    queries_per_step: int = 4  # queries in one rollout batch
    max_response_len: int = 10  # responses are cut at this many tokens
    # objective (gspo/objective.py)
    loss_type: str = "gspo"  # "gspo", "gspo_token" or "grpo" (the token-level baseline)
    clip_eps_low: float = 3e-4  # left clipping range (sequence-level ratios are clipped in a very narrow band)
    clip_eps_high: float = 4e-4  # right clipping range
    grpo_clip_eps: float = 0.2  # clipping range of the token-level baseline
    adv_eps: float = 1e-6  # added to the group standard deviation of the rewards
    adv_unbiased_std: bool = True  # Bessel-corrected group standard deviation
    # optimisation
    lr: float = 3e-3
    updates_per_step: int = 1  # passes over each rollout batch
    minibatch_groups: int = 2  # groups (queries) per gradient update
    seed: int = 0
