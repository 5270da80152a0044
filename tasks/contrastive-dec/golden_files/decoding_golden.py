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
    probs = expert_logprobs.exp()
    return probs >= alpha * probs.max(dim=-1, keepdim=True).values


def contrastive_scores(expert_logits: torch.Tensor, amateur_logits: torch.Tensor, cfg: CDConfig) -> torch.Tensor:
    """The contrastive score of every candidate next token.

    Args:
        expert_logits, amateur_logits: (..., vocab) the two models' next-token logits for the same context.
        cfg: alpha and the amateur's temperature.

    Returns:
        (..., vocab) float64 scores, -inf for the tokens outside the plausible set.
    """
    expert = torch.log_softmax(expert_logits.to(torch.float64), dim=-1)
    amateur = torch.log_softmax(amateur_logits.to(torch.float64) / cfg.amateur_temperature, dim=-1)
    mask = plausible_tokens(expert, cfg.alpha)
    return torch.where(mask, expert - amateur, torch.full_like(expert, float("-inf")))


def contrastive_search(expert: TinyLM, amateur: TinyLM, prompt: Sequence[int], cfg: CDConfig) -> SearchResult:
    """Search for the continuation of `prompt` with the highest total contrastive score.

    Keeps cfg.beam_size hypotheses, each extended at every step by every token of finite score, for exactly
    cfg.max_new_tokens steps. Ties in total score are broken by the lower index of the parent in the previous beam,
    then by the lower token id.

    Returns:
        The `SearchResult`.
    """
    beam = [Hypothesis([], 0.0)]
    history: list[list[Hypothesis]] = []
    for _ in range(cfg.max_new_tokens):
        candidates = []
        for parent, hyp in enumerate(beam):
            ids = list(prompt) + hyp.tokens
            scores = contrastive_scores(expert.logits(ids)[-1], amateur.logits(ids)[-1], cfg)
            for token in torch.nonzero(torch.isfinite(scores)).flatten().tolist():
                candidates.append((hyp.score + float(scores[token]), parent, token))
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        beam = [Hypothesis(beam[parent].tokens + [token], score) for score, parent, token in candidates[: cfg.beam_size]]
        history.append(beam)
    return SearchResult(beam[0], history)
