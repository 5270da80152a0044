"""Contrastive decoding (Section 3 of the paper): the plausibility constraint, the contrastive token scores, and
the search for the continuation of highest total score."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from contrast.config import CDConfig
from contrast.model import TinyLM
from contrast.results import Hypothesis, SearchResult


def plausible_tokens(expert_logprobs: torch.Tensor, alpha: float) -> torch.Tensor:
    """The tokens that satisfy the plausibility constraint.

    Args:
        expert_logprobs: (..., vocab) the expert's next-token log-probabilities.
        alpha: the threshold.

    Returns:
        (..., vocab) bool mask.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def contrastive_scores(expert_logits: torch.Tensor, amateur_logits: torch.Tensor, cfg: CDConfig) -> torch.Tensor:
    """The contrastive score of every candidate next token.

    Args:
        expert_logits, amateur_logits: (..., vocab) the two models' next-token logits for the same context.
        cfg: alpha and the amateur's temperature.

    Returns:
        (..., vocab) float64 scores, -inf for the tokens outside the plausible set.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def contrastive_search(expert: TinyLM, amateur: TinyLM, prompt: Sequence[int], cfg: CDConfig) -> SearchResult:
    """Search for the continuation of `prompt` with the highest total contrastive score.

    Keeps cfg.beam_size hypotheses, each extended at every step by every token of finite score, for exactly
    cfg.max_new_tokens steps. Ties in total score are broken by the lower index of the parent in the previous beam,
    then by the lower token id.

    Returns:
        The `SearchResult`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
