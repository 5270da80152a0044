"""The SPIN objective: the model, as main player, learns to tell human responses from the
responses of its previous iterate (the opponent).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def spin_loss(
    policy_real_logps: torch.Tensor,
    policy_generated_logps: torch.Tensor,
    opponent_real_logps: torch.Tensor,
    opponent_generated_logps: torch.Tensor,
    lam: float = 0.1,
    loss_type: str = "logistic",
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Per-pair SPIN loss.

    Each example pairs a prompt x with its human response y ~ p_data ("real") and a response
    y' ~ p_{theta_t} sampled from the opponent ("generated").

    Args:
        policy_real_logps: (batch,) log p_theta(y | x), summed over the response tokens, under the model
            being trained.
        policy_generated_logps: (batch,) log p_theta(y' | x).
        opponent_real_logps: (batch,) log p_{theta_t}(y | x) under the frozen opponent.
        opponent_generated_logps: (batch,) log p_{theta_t}(y' | x).
        lam: the regularisation parameter lambda > 0.
        loss_type: "logistic" for l(t) = log(1 + exp(-t)), or "hinge" for l(t) = max(0, 1 - t).
            Any other value raises ValueError.

    Returns:
        (losses, real_rewards, generated_rewards), each (batch,) in the input dtype. ``losses`` is the
        unreduced loss of each pair (no mean), differentiable w.r.t. the model's log-probs and
        numerically stable for large arguments. The rewards are lam * (log p_theta - log p_{theta_t})
        of the real and of the generated response, detached from the autograd graph.
    """
    real_logratios = policy_real_logps - opponent_real_logps
    generated_logratios = policy_generated_logps - opponent_generated_logps
    t = lam * (real_logratios - generated_logratios)
    if loss_type == "logistic":
        losses = F.softplus(-t)
    elif loss_type == "hinge":
        losses = torch.relu(1.0 - t)
    else:
        raise ValueError(f"unknown loss_type {loss_type!r}; use 'logistic' or 'hinge'")
    real_rewards = lam * real_logratios.detach()
    generated_rewards = lam * generated_logratios.detach()
    return losses, real_rewards, generated_rewards


def real_preferred_rate(real_rewards: torch.Tensor, generated_rewards: torch.Tensor) -> torch.Tensor:
    """How often the model already ranks the human response above the opponent's response."""
    return (real_rewards > generated_rewards).float().mean()
