"""The toy tokenizer: one token per space-separated word, with the chat-format delimiters as single tokens."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SPECIALS = ("<eos>", "<|think|>", "<|answer|>")
WORDS = ("Wait", "Final", "Answer:", "so", "then", "check", "carry", "add", "hmm", "+", "=")
DIGITS = tuple(str(d) for d in range(10))


@dataclass(frozen=True)
class ToyTokenizer:
    """Maps words to ids and back. `<|think|>` opens the thinking segment; `<|answer|>` is the end-of-thinking
    delimiter, which also opens the answer segment; `<eos>` ends the generation."""

    tokens: tuple[str, ...] = SPECIALS + WORDS + DIGITS

    @property
    def vocab_size(self) -> int:
        return len(self.tokens)

    @property
    def eos_id(self) -> int:
        return self.tokens.index("<eos>")

    @property
    def think_id(self) -> int:
        """The start-of-thinking delimiter."""
        return self.tokens.index("<|think|>")

    @property
    def end_think_id(self) -> int:
        """The end-of-thinking delimiter."""
        return self.tokens.index("<|answer|>")

    def is_digit(self, token_id: int) -> bool:
        return self.tokens[token_id] in DIGITS

    def digit_id(self, digit: int) -> int:
        """The id of the digit 0..9."""
        return self.tokens.index(str(digit))

    def encode(self, text: str) -> list[int]:
        """Ids of the space-separated words of `text` (ValueError for an unknown word)."""
        index = {tok: i for i, tok in enumerate(self.tokens)}
        try:
            return [index[w] for w in text.split()]
        except KeyError as err:
            raise ValueError(f"unknown token {err.args[0]!r}") from None

    def decode(self, token_ids: Sequence[int]) -> str:
        return " ".join(self.tokens[i] for i in token_ids)
