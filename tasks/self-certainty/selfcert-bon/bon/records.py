"""What selection and best-of-N return."""
from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass
class Selection:
    """The answer chosen among N responses.

    answer: the chosen answer (as one of the responses spells it); None when no response has an answer and the
            method votes, or when the method is "max" and the chosen response has none.
    index:  the chosen response: for "max", the response of highest confidence; for the voting methods, the
            response of highest confidence among those whose answer is the chosen one (any response when
            `answer` is None).
    votes:  the total vote of each distinct answer (answers that `same_answer` deems equal share one entry,
            under one of their spellings); empty for "max".
    """

    answer: str | None
    index: int
    votes: dict[str, float]


@dataclass
class BestOfNResult:
    """One best-of-N run.

    responses: the N responses, drawn by one `sample_responses` call (token ids, EOS included when present).
    scores:    (N,) float64, each response's confidence under the configured measure.
    answers:   the answer extracted from each response (`extract_answer`), None where it has none.
    selection: the chosen answer and response.
    """

    responses: list[list[int]]
    scores: torch.Tensor
    answers: list[str | None]
    selection: Selection
