"""Toy questions: a few digits joined by "+"; the answer is their sum modulo 10."""
from __future__ import annotations

from dataclasses import dataclass

import torch

from s1.tokenizer import ToyTokenizer


@dataclass(frozen=True)
class Question:
    """A question's tokens and its true answer (a digit, as a string)."""

    prompt_ids: list[int]
    answer: str


def toy_questions(tokenizer: ToyTokenizer, count: int, seed: int) -> list[Question]:
    """`count` questions of two to four digits, seeded."""
    g = torch.Generator().manual_seed(seed)
    questions = []
    for _ in range(count):
        digits = torch.randint(0, 10, (int(torch.randint(2, 5, (1,), generator=g)),), generator=g).tolist()
        text = " + ".join(str(d) for d in digits)
        questions.append(Question(tokenizer.encode(text), str(sum(digits) % 10)))
    return questions
