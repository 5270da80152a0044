"""Answer extraction and answer equivalence, as the evaluation of the toy task defines them."""
from __future__ import annotations

from collections.abc import Sequence

from bon.vocab import ANS, digit_value, is_digit


def extract_answer(token_ids: Sequence[int]) -> str | None:
    """The answer of a response: the digits right after its last answer marker, as written ("07").

    None when the response has no answer marker or no digit follows the last one.
    """
    marks = [i for i, tok in enumerate(token_ids) if tok == ANS]
    if not marks:
        return None
    digits = []
    for tok in token_ids[marks[-1] + 1:]:
        if not is_digit(tok):
            break
        digits.append(str(digit_value(tok)))
    return "".join(digits) or None


def same_answer(a: str, b: str) -> bool:
    """Whether two extracted answers are the same number ("07" and "7" are; leading zeros do not count)."""
    return int(a) == int(b)


def is_correct(answer: str | None, gold: str) -> bool:
    """Whether `answer` is the gold answer (a missing answer never is)."""
    return answer is not None and same_answer(answer, gold)
