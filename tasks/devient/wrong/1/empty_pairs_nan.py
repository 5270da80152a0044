# WRONG: no special case for a batch without pairs (the mean over zero pairs is NaN).
import torch
import torch.nn.functional as F


def evaluator_loss(
    scores: torch.Tensor,
    logits: torch.Tensor,
    labels: torch.Tensor,
    pairs: torch.Tensor,
    classification_weight: float = 0.9,
) -> EvaluatorLossOutput:
    """Weighted sum of the update-type cross-entropy and the pairwise logistic ranking loss.

    Args:
        scores: entailment-strength scores of the N (image, hypothesis, update) items, shape ``(N,)``.
        logits: update-type logits, shape ``(N, 2)`` (column 0 = weakener, 1 = strengthener).
        labels: update types, shape ``(N,)``, int64 in {0, 1}.
        pairs: int64 tensor of shape ``(P, 2)``; row ``(i, j)`` says that item ``i`` is a
            strengthener and item ``j`` a weakener of the same premise and hypothesis. ``P`` may
            be 0.
        classification_weight: the weight ``w`` in [0, 1] of the classification term; the ranking
            term gets ``1 - w``.

    Returns:
        :class:`EvaluatorLossOutput` ``(loss, classification, ranking)`` of scalars:
        ``classification`` is the cross-entropy averaged over the N items, ``ranking`` the
        logistic ranking loss averaged over the P pairs (0 when ``P == 0``), and
        ``loss = w * classification + (1 - w) * ranking``. Must be differentiable, keep the
        input dtype, and stay finite and accurate for score differences of any size.
    """
    classification = F.cross_entropy(logits, labels)
    margin = scores[pairs[:, 0]] - scores[pairs[:, 1]]
    ranking = F.softplus(-margin).mean()
    w = classification_weight
    loss = w * classification + (1 - w) * ranking
    return EvaluatorLossOutput(loss, classification, ranking)
