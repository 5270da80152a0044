"""Answer extraction: what a trace answers, if anything."""
from __future__ import annotations

from collections.abc import Sequence

from deepconf.vocab import ANS, digit_value, is_digit


def extract_answer(token_ids: Sequence[int]) -> str | None:
    """The answer of a trace: the digits right after its last answer marker, as a string ("42").

    None when the trace has no answer marker or no digit follows the last one.
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
