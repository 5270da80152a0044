"""Rule-based verification of sampled responses against the ground-truth answer (reward 1 or 0)."""
from __future__ import annotations

import torch

from kimi.data import DIGIT0, EOS, response_mask


def final_answer(responses: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """The digit each response ends with: the token just before EOS, or its last token if it has no EOS.

    responses: (..., T) long; lengths: (...) long, tokens of each response (EOS included). Returns (...) long:
    the digit, or -1 where that token is not a digit (or the response is empty or only EOS).
    """
    ended = (responses.gather(-1, (lengths - 1).clamp(min=0).unsqueeze(-1)).squeeze(-1) == EOS) & (lengths > 0)
    last = (lengths - 1 - ended.long()).clamp(min=0)
    token = responses.gather(-1, last.unsqueeze(-1)).squeeze(-1)
    digit = token - DIGIT0
    valid = (digit >= 0) & (digit <= 9) & (lengths - ended.long() > 0)
    return torch.where(valid, digit, torch.full_like(digit, -1))


def verify(responses: torch.Tensor, lengths: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """(N, K) bool: whether response k of problem n states the answer answers[n].

    responses: (N, K, T) long; lengths: (N, K) long; answers: (N,) long.
    """
    if responses.shape[:2] != lengths.shape or answers.shape != lengths.shape[:1]:
        raise ValueError("responses, lengths and answers disagree in shape")
    return final_answer(responses, lengths) == answers.unsqueeze(1)


def padding_is_clean(responses: torch.Tensor, lengths: torch.Tensor) -> bool:
    """Whether every position past a response's length holds PAD (0)."""
    return bool((responses.masked_fill(response_mask(lengths, responses.shape[-1]), 0) == 0).all())
