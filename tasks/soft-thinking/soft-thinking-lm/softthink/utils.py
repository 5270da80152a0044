"""Shared helpers and records."""
from __future__ import annotations

from dataclasses import dataclass

import torch


def entropy(probs: torch.Tensor) -> torch.Tensor:
    """Shannon entropy (nats) of distributions over the last axis; zero-probability entries contribute 0."""
    logp = torch.where(probs > 0, probs.log(), torch.zeros_like(probs))
    return -(probs * logp).sum(dim=-1)


@dataclass
class SoftThinkingOutput:
    """The result of one generation with Soft Thinking.

    concept_tokens: (n_think, vocab_size) the concept tokens fed back as inputs during thinking, in order.
    answer_ids: (n_answer,) long, the answer tokens decoded greedily after the end-of-thinking token (the
        end-of-sequence token included when it was produced).
    stop_reason: why thinking ended: "end_think" (the model itself predicted the end of thinking),
        "cold_stop" (Cold Stop) or "max_think" (the thinking budget was used up).
    """

    concept_tokens: torch.Tensor
    answer_ids: torch.Tensor
    stop_reason: str
