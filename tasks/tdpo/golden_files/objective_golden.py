"""The TDPO objectives: a DPO-style preference term corrected by the sequential KL divergences."""
from __future__ import annotations

import torch
import torch.nn.functional as F


def tdpo_loss(
    chosen_logps_margin: torch.Tensor,
    rejected_logps_margin: torch.Tensor,
    chosen_seq_kl: torch.Tensor,
    rejected_seq_kl: torch.Tensor,
    beta: float = 0.1,
    alpha: float = 0.5,
    use_tdpo2: bool = True,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """TDPO1 / TDPO2 loss of a batch of preference pairs.

    Args:
        chosen_logps_margin: (batch,) sum over the chosen response's tokens of
            log pi_theta(y_t | prefix) - log pi_ref(y_t | prefix)  (see ``token_level_stats``).
        rejected_logps_margin: (batch,) the same for the rejected response.
        chosen_seq_kl: (batch,) sequential KL D_SeqKL(x, y_w; pi_ref || pi_theta) of the chosen response.
        rejected_seq_kl: (batch,) sequential KL D_SeqKL(x, y_l; pi_ref || pi_theta) of the rejected response.
        beta: beta > 0, the strength of the KL regularisation / reward scale.
        alpha: alpha >= 0, weight of the KL-difference term in TDPO2 (not used by TDPO1).
        use_tdpo2: False for TDPO1, True for TDPO2 (weighted KL term, no gradient through the chosen
            response's sequential KL).

    Returns:
        (losses, chosen_rewards, rejected_rewards), each (batch,) in the input dtype. ``losses`` is the
        unreduced per-pair loss, differentiable w.r.t. the four inputs as the method prescribes and
        numerically stable for large arguments; the rewards are beta * logps_margin of the chosen and
        rejected responses, detached from the autograd graph.
    """
    logratio_gap = chosen_logps_margin - rejected_logps_margin
    if use_tdpo2:
        kl_gap = alpha * (rejected_seq_kl - chosen_seq_kl.detach())
    else:
        kl_gap = rejected_seq_kl - chosen_seq_kl
    losses = -F.logsigmoid(beta * (logratio_gap - kl_gap))
    chosen_rewards = beta * chosen_logps_margin.detach()
    rejected_rewards = beta * rejected_logps_margin.detach()
    return losses, chosen_rewards, rejected_rewards


def kl_gap(chosen_seq_kl: torch.Tensor, rejected_seq_kl: torch.Tensor) -> torch.Tensor:
    """Mean of D_SeqKL(y_l) - D_SeqKL(y_w) over the batch (logged during training)."""
    return (rejected_seq_kl - chosen_seq_kl).mean()
