"""Preference objectives for training a policy directly on pairwise preferences.

Every loss here works on *summed* per-sequence log-probabilities, one number per example
(see ``dpo.logprobs.sequence_logps``), for the policy being trained and for the frozen
reference model, and returns one loss value per preference pair (the trainer averages).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

LOSS_TYPES = ("sigmoid", "ipo")


def dpo_loss(
    policy_chosen_logps: torch.Tensor,
    policy_rejected_logps: torch.Tensor,
    reference_chosen_logps: torch.Tensor,
    reference_rejected_logps: torch.Tensor,
    beta: float = 0.1,
    label_smoothing: float = 0.0,
    loss_type: str = "sigmoid",
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """DPO preference loss of a batch of pairs, and the implicit rewards.

    Args:
        policy_chosen_logps: (batch,) log pi_theta(y_w | x), summed over the chosen response tokens.
        policy_rejected_logps: (batch,) log pi_theta(y_l | x) for the rejected responses.
        reference_chosen_logps: (batch,) log pi_ref(y_w | x).
        reference_rejected_logps: (batch,) log pi_ref(y_l | x).
        beta: temperature beta > 0 of the implicit reward (strength of the KL penalty).
        label_smoothing: epsilon in [0, 0.5], the assumed probability that a preference label
            is flipped (conservative DPO). 0 gives the plain DPO loss. Used only by "sigmoid".
        loss_type: "sigmoid" for the (conservative) DPO loss, "ipo" for the IPO squared loss.
            Any other value raises ValueError.

    Returns:
        (losses, chosen_rewards, rejected_rewards), each of shape (batch,) and the dtype of
        the inputs. ``losses`` holds one unreduced loss per pair (no mean) and is
        differentiable w.r.t. the policy log-probs; it must stay finite and accurate for
        very large |margins| (use a numerically stable log-sigmoid). The rewards are the
        implicit rewards beta * (log pi_theta(y | x) - log pi_ref(y | x)) of the chosen and
        rejected responses, detached from the autograd graph (they are only logged).
    """
    if loss_type not in LOSS_TYPES:
        raise ValueError(f"unknown loss_type {loss_type!r}, expected one of {LOSS_TYPES}")

    chosen_logratios = policy_chosen_logps - reference_chosen_logps
    rejected_logratios = policy_rejected_logps - reference_rejected_logps
    margin = chosen_logratios - rejected_logratios

    if loss_type == "ipo":
        losses = (margin - 1.0 / (2.0 * beta)) ** 2
    else:
        losses = (
            -(1.0 - label_smoothing) * F.logsigmoid(beta * margin)
            - label_smoothing * F.logsigmoid(-beta * margin)
        )

    chosen_rewards = beta * chosen_logratios.detach()
    rejected_rewards = beta * rejected_logratios.detach()
    return losses, chosen_rewards, rejected_rewards


def preference_accuracy(chosen_rewards: torch.Tensor, rejected_rewards: torch.Tensor) -> torch.Tensor:
    """Share of pairs whose chosen response gets the higher implicit reward."""
    return (chosen_rewards > rejected_rewards).float().mean()


def reward_margin(chosen_rewards: torch.Tensor, rejected_rewards: torch.Tensor) -> torch.Tensor:
    """Mean gap between the implicit rewards of the chosen and rejected responses."""
    return (chosen_rewards - rejected_rewards).mean()
