"""DoLa: contrast the mature layer with a dynamically chosen premature layer."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import torch
from torch import Tensor


@dataclass
class DoLaStep:
    """Result of one DoLa contrast for a batch of next-token positions.

    scores:          (batch, vocab) contrasted scores F; ``-inf`` outside the plausible set.
    plausible:       (batch, vocab) bool, the adaptive plausibility set V_head.
    premature_layer: (batch,) int64, the premature layer M chosen for each row.
    jsd:             (batch, num_candidates) Jensen-Shannon divergence between the mature
                     layer and each candidate layer, in the order of ``candidate_layers``.
    """

    scores: Tensor
    plausible: Tensor
    premature_layer: Tensor
    jsd: Tensor


def candidate_buckets(n_layers: int, n_buckets: int = 2, stride: int = 2) -> list[list[int]]:
    """Split the premature layers 0..n_layers-1 into contiguous buckets of candidate layers.

    Within a bucket only every ``stride``-th layer is kept, as in the paper's setup
    (e.g. the even layers). The bucket to use is a hyperparameter picked on validation data.
    """
    bounds = [round(i * n_layers / n_buckets) for i in range(n_buckets + 1)]
    return [
        [layer for layer in range(lo, hi) if layer % stride == 0] or [lo]
        for lo, hi in zip(bounds[:-1], bounds[1:])
    ]


def dola_step(
    layer_logits: Mapping[int, Tensor],
    candidate_layers: Sequence[int],
    mature_layer: int,
    alpha: float = 0.1,
) -> DoLaStep:
    """One DoLa contrast: pick the premature layer, then contrast log-probabilities.

    Args:
        layer_logits: maps a layer index to that layer's early-exit next-token logits of
            shape (batch, vocab). It contains ``mature_layer`` and every candidate layer
            (it may contain other layers too, which are ignored).
        candidate_layers: the candidate premature layers J (non-empty, all different from
            ``mature_layer``).
        mature_layer: the index N of the final layer.
        alpha: the adaptive plausibility threshold, 0 <= alpha <= 1.

    Conventions (the tests rely on them):
        * q_j = softmax(layer_logits[j]) over the vocabulary; work with log-softmax so that
          the result stays finite for any finite logits.
        * JSD(q_N || q_j) = 1/2 KL(q_N || m) + 1/2 KL(q_j || m), m = (q_N + q_j) / 2, natural
          log, summed over the vocabulary; entries with zero probability contribute 0
          (0 log 0 = 0). The returned ``jsd`` has shape (batch, len(candidate_layers)).
        * Each row picks its own premature layer M = argmax_j JSD; on an exact tie the
          candidate that comes first in ``candidate_layers`` wins. ``premature_layer`` holds
          layer indices (values from ``candidate_layers``), not positions in the list.
        * plausible[b, x] is True iff q_N(x) >= alpha * max_w q_N(w) (ties with the
          maximum are kept, so alpha = 1 keeps every maximiser).
        * scores = log q_N - log q_M on plausible tokens and exactly ``-inf`` elsewhere,
          in the dtype of the input logits.
    """
    log_qn = torch.log_softmax(layer_logits[mature_layer], dim=-1)
    log_qj = torch.stack([torch.log_softmax(layer_logits[j], dim=-1) for j in candidate_layers])
    qn, qj = log_qn.exp(), log_qj.exp()
    m = 0.5 * (qn + qj)
    kl_n = (torch.xlogy(qn, qn) - torch.xlogy(qn, m)).sum(dim=-1)
    kl_j = (torch.xlogy(qj, qj) - torch.xlogy(qj, m)).sum(dim=-1)
    jsd = (0.5 * (kl_n + kl_j)).transpose(0, 1)

    best = jsd.argmax(dim=-1)
    layers = torch.tensor(list(candidate_layers), dtype=torch.long, device=best.device)
    rows = torch.arange(best.shape[0], device=best.device)
    log_qm = log_qj[best, rows]

    plausible = qn >= alpha * qn.max(dim=-1, keepdim=True).values
    scores = (log_qn - log_qm).masked_fill(~plausible, float("-inf"))
    return DoLaStep(scores=scores, plausible=plausible, premature_layer=layers[best], jsd=jsd)
