"""A whitespace word tokenizer over a small fixed vocabulary (digits are single tokens)."""

from __future__ import annotations

from collections.abc import Sequence

SPECIAL = ("<pad>", "<bos>", "<eos>")
DIGITS = tuple(str(d) for d in range(10))
WORDS = ("q:", "a:", "i", "have", "apples", "and", "get", "more", "so", "the", "answer", "is", "then", "plus",
         "minus", "=", "we", "left", "total", ".")


class Tokenizer:
    """Maps words to ids and back. ids: 0 <pad>, 1 <bos>, 2 <eos>, 3-12 the digits 0-9, then the words."""

    def __init__(self) -> None:
        self.vocab: tuple[str, ...] = SPECIAL + DIGITS + WORDS
        self.ids = {w: i for i, w in enumerate(self.vocab)}
        self.pad_id, self.bos_id, self.eos_id = 0, 1, 2

    def __len__(self) -> int:
        return len(self.vocab)

    def encode(self, text: str, bos: bool = True) -> list[int]:
        """Ids of the whitespace-separated words of text (a number must be written digit by digit: "1 2"),
        preceded by <bos> unless bos is False. Raises KeyError on an unknown word."""
        ids = [self.ids[w] for w in text.lower().split()]
        return [self.bos_id] + ids if bos else ids

    def decode(self, ids: Sequence[int]) -> str:
        """The words of ids joined by spaces, special tokens left out."""
        return " ".join(self.vocab[i] for i in ids if i >= len(SPECIAL))

    def is_digit(self, token_id: int) -> bool:
        """Whether token_id is one of the ten digit tokens."""
        return len(SPECIAL) <= token_id < len(SPECIAL) + len(DIGITS)
