"""A word-level tokenizer over a closed vocabulary (the toy stand-in for the small model's tokenizer)."""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_WORD = re.compile(r"[a-z0-9]+|[^\sa-z0-9]")
SPECIALS = ("<bos>", "<unk>")


def split_words(text: str) -> list[str]:
    """Lower-cased words, numbers and single punctuation marks of `text`, in order."""
    return _WORD.findall(text.lower())


class WordTokenizer:
    """Maps words to ids. Id 0 is the beginning-of-sequence token, id 1 the unknown word."""

    bos_id = 0
    unk_id = 1

    def __init__(self, words: Iterable[str]) -> None:
        self.vocab: list[str] = list(SPECIALS) + sorted(set(words) - set(SPECIALS))
        self._index = {word: i for i, word in enumerate(self.vocab)}

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> WordTokenizer:
        """A tokenizer whose vocabulary is every word of `texts`."""
        return cls(word for text in texts for word in split_words(text))

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    def encode(self, text: str) -> list[int]:
        """Token ids of `text` (no beginning-of-sequence token)."""
        return [self._index.get(word, self.unk_id) for word in split_words(text)]

    def decode(self, ids: Sequence[int]) -> str:
        """The words of `ids` joined by single spaces."""
        return " ".join(self.vocab[i] for i in ids)
