"""Where the answer is in a generated path: the last number, written digit by digit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cotdec.tokenizer import Tokenizer


@dataclass(frozen=True)
class AnswerSpan:
    """The answer tokens are path tokens[start:end]; text is the number they spell ("12")."""

    start: int
    end: int
    text: str


def find_answer(tokens: Sequence[int], tokenizer: Tokenizer) -> AnswerSpan | None:
    """The last maximal run of digit tokens in a path's tokens, or None when the path has no digit."""
    end = None
    for i in range(len(tokens) - 1, -1, -1):
        if tokenizer.is_digit(tokens[i]):
            end = i + 1
            break
    if end is None:
        return None
    start = end - 1
    while start > 0 and tokenizer.is_digit(tokens[start - 1]):
        start -= 1
    return AnswerSpan(start, end, "".join(tokenizer.vocab[t] for t in tokens[start:end]))
