"""What CoT-decoding produces."""

from __future__ import annotations

from dataclasses import dataclass, field

import torch

from cotdec.answers import AnswerSpan


@dataclass
class DecodedPath:
    """One decoding path.

    Attributes:
        branch: the path's index among the branches (0 starts with the most probable first token).
        tokens: the generated token ids, starting with the branch's first token; the end-of-sequence token is not
            included.
        probs: (len(tokens), vocab) float64; row t is the model's next-token distribution at the position where
            tokens[t] was chosen.
        answer: where the answer is (None until scored, or when the path has none).
        confidence: the path's confidence in its answer (None until scored, or when the path has no answer).
    """

    branch: int
    tokens: list[int]
    probs: torch.Tensor
    answer: AnswerSpan | None = None
    confidence: float | None = None


@dataclass
class CotResult:
    """The outcome of CoT-decoding a prompt.

    Attributes:
        answer: the chosen answer text, or None when no path has an answer.
        best_branch: the branch of the chosen path (the highest-confidence path giving the chosen answer), or None.
        paths: every path, scored, in branch order.
        answer_scores: for each answer text, the score it was chosen by (its best path's confidence, or with
            aggregation the aggregated confidence).
    """

    answer: str | None
    best_branch: int | None
    paths: list[DecodedPath]
    answer_scores: dict[str, float] = field(default_factory=dict)
