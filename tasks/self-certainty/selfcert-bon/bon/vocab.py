"""The toy vocabulary: padding, begin and end tokens, an answer marker, ten digits and a few words."""
from __future__ import annotations

from collections.abc import Sequence

PAD = 0  # fills the rows of a batch after their last token
BOS = 1  # starts every sequence the model reads
EOS = 2  # ends a response
ANS = 3  # the answer marker "=": the digits right after the last one are the response's answer
DIGITS = tuple(range(4, 14))  # "0" .. "9"
WORDS = ("plus", "so", "then", "wait", "carry", "check", "hence", "is")
TOKENS: tuple[str, ...] = ("<pad>", "<bos>", "<eos>", "=", *(str(d) for d in range(10)), *WORDS)
VOCAB_SIZE = len(TOKENS)


def is_digit(token_id: int) -> bool:
    """Whether `token_id` is one of the ten digit tokens."""
    return DIGITS[0] <= token_id <= DIGITS[-1]


def digit_value(token_id: int) -> int:
    """The value 0..9 of a digit token (ValueError for any other token)."""
    if not is_digit(token_id):
        raise ValueError(f"token {token_id} is not a digit")
    return token_id - DIGITS[0]


def encode(text: str) -> list[int]:
    """Token ids of a space-separated string of tokens."""
    index = {tok: i for i, tok in enumerate(TOKENS)}
    try:
        return [index[t] for t in text.split()]
    except KeyError as err:
        raise ValueError(f"unknown token {err.args[0]!r}") from None


def decode(token_ids: Sequence[int]) -> str:
    """The space-separated tokens of `token_ids`."""
    return " ".join(TOKENS[i] for i in token_ids)
