"""SimPO objective and training diagnostics.

SimPO scores a response by its *average* per-token log-likelihood under the policy, scaled by beta;
there is no reference model. The preference loss asks the chosen response to beat the rejected one
by at least a target margin gamma.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F


def simpo_loss(
    chosen_token_logps: torch.Tensor,
    chosen_mask: torch.Tensor,
    rejected_token_logps: torch.Tensor,
    rejected_mask: torch.Tensor,
    beta: float = 2.0,
    gamma: float = 1.0,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """SimPO loss for a batch of preference pairs.

    Args:
        chosen_token_logps: (batch, Lw) log pi_theta(y_w,i | x, y_w,<i) for each response position.
        chosen_mask: (batch, Lw) bool (or 0/1) mask, True/1 on real tokens of y_w, False/0 on padding.
            Padding positions of the log-prob tensor hold arbitrary finite values and must not
            contribute. Every response has at least one real token.
        rejected_token_logps: (batch, Ll) the same for the rejected responses y_l (Ll may differ from Lw).
        rejected_mask: (batch, Ll) mask of the rejected responses.
        beta: reward scale beta > 0.
        gamma: target reward margin gamma >= 0, in reward units (it is not multiplied by beta).

    Returns:
        (losses, chosen_rewards, rejected_rewards), each (batch,) in the dtype of the log-probs.
        ``losses`` are the unreduced per-pair losses, differentiable w.r.t. the token log-probs and
        numerically stable for large reward gaps. The rewards are the length-normalised rewards
        beta / |y| * log pi_theta(y | x) of the chosen and rejected responses, detached from the graph.
    """
    chosen_mask = chosen_mask.to(chosen_token_logps.dtype)
    rejected_mask = rejected_mask.to(rejected_token_logps.dtype)
    chosen_avg = (chosen_token_logps * chosen_mask).sum(-1) / chosen_mask.sum(-1)
    rejected_avg = (rejected_token_logps * rejected_mask).sum(-1) / rejected_mask.sum(-1)
    chosen_rewards = beta * chosen_avg
    rejected_rewards = beta * rejected_avg
    losses = -F.logsigmoid(chosen_rewards - rejected_rewards - gamma)
    return losses, chosen_rewards.detach(), rejected_rewards.detach()


def reward_accuracy(chosen_rewards: torch.Tensor, rejected_rewards: torch.Tensor, gamma: float = 0.0) -> torch.Tensor:
    """Share of pairs where the chosen reward exceeds the rejected reward by more than gamma."""
    return ((chosen_rewards - rejected_rewards) > gamma).float().mean()


def length_correlation(rewards: torch.Tensor, lengths: torch.Tensor) -> float:
    """Pearson correlation between rewards and response lengths (a length-bias diagnostic)."""
    r = rewards.double() - rewards.double().mean()
    n = lengths.double() - lengths.double().mean()
    denom = r.norm() * n.norm()
    return float((r * n).sum() / denom) if denom > 0 else 0.0
