"""Answer extraction from the answer segment."""
from __future__ import annotations

from collections.abc import Sequence

from s1.tokenizer import ToyTokenizer


def extract_answer(tokenizer: ToyTokenizer, answer_ids: Sequence[int]) -> str | None:
    """The digits that follow the last "Answer:" of the answer segment (or, with no "Answer:", its first run of
    digits), as a string; None when there are none."""
    answer_mark = tokenizer.encode("Answer:")[0]
    marks = [i for i, t in enumerate(answer_ids) if t == answer_mark]
    start = marks[-1] + 1 if marks else next((i for i, t in enumerate(answer_ids) if tokenizer.is_digit(t)),
                                             len(answer_ids))
    digits = []
    for t in answer_ids[start:]:
        if not tokenizer.is_digit(t):
            break
        digits.append(tokenizer.tokens[t])
    return "".join(digits) or None
