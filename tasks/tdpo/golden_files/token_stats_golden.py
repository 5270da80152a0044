"""Token-level statistics of a response under the policy and the reference model.

TDPO needs, for every response, two sums over its tokens: the log-probability ratio between policy and
reference of the tokens actually generated, and the KL divergence between the reference's and the
policy's full next-token distributions at every response position (the *sequential* KL).
"""
from __future__ import annotations

import torch

from .batch import IGNORE_INDEX


def token_level_stats(
    policy_logits: torch.Tensor,
    reference_logits: torch.Tensor,
    labels: torch.Tensor,
    ignore_index: int = IGNORE_INDEX,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sequence log-ratio and sequential KL divergence.

    Args:
        policy_logits: (batch, seq_len, vocab) logits of pi_theta; the logits at position t are the
            next-token distribution for the token at position t + 1.
        reference_logits: (batch, seq_len, vocab) logits of pi_ref (same layout); treated as constants.
        labels: (batch, seq_len) the input token ids, with ``ignore_index`` at positions that are not
            scored (prompt and padding).

    Returns:
        (logps_margin, seq_kl), each of shape (batch,) and the dtype of the logits:
        logps_margin[b] = sum over scored tokens y_t of  log pi_theta(y_t | prefix) - log pi_ref(y_t | prefix);
        seq_kl[b] = sum over the same positions of KL( pi_ref(. | prefix) || pi_theta(. | prefix) ),
        the KL between the full next-token distributions, reference first. Both are differentiable
        w.r.t. ``policy_logits``.
    """
    policy_logits = policy_logits[:, :-1, :]
    reference_logits = reference_logits[:, :-1, :]
    labels = labels[:, 1:]
    mask = labels != ignore_index
    safe_labels = torch.where(mask, labels, torch.zeros_like(labels))

    policy_logps = policy_logits.log_softmax(dim=-1)
    reference_logps = reference_logits.log_softmax(dim=-1)

    policy_token = torch.gather(policy_logps, 2, safe_labels.unsqueeze(-1)).squeeze(-1)
    reference_token = torch.gather(reference_logps, 2, safe_labels.unsqueeze(-1)).squeeze(-1)
    logps_margin = ((policy_token - reference_token) * mask).sum(-1)

    per_position_kl = (reference_logps.exp() * (reference_logps - policy_logps)).sum(-1)
    seq_kl = (per_position_kl * mask).sum(-1)
    return logps_margin, seq_kl


def mean_token_kl(seq_kl: torch.Tensor, labels: torch.Tensor, ignore_index: int = IGNORE_INDEX) -> torch.Tensor:
    """Average per-token KL of a batch (for logging): total sequential KL / number of scored tokens."""
    n_tokens = (labels[:, 1:] != ignore_index).sum()
    return seq_kl.sum() / n_tokens.clamp(min=1)
