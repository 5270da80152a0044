"""A whitespace word tokenizer over a small fixed vocabulary."""

from __future__ import annotations

from collections.abc import Sequence

SPECIAL = ("<pad>", "<bos>", "<unk>")
WORDS = (
    "review:", "sentiment:", "question:", "answer:", "\n",
    "positive", "negative", "neutral", "yes", "no",
    "n/a", "[mask]",
    "great", "good", "fine", "bad", "awful", "boring", "fun", "loved", "hated", "movie", "plot", "acting",
    "the", "a", "was", "is", "and", "but", "very", "not", "really", "it", "this", "film", "story", "ending",
)


class Tokenizer:
    """Word ids: 0 <pad>, 1 <bos>, 2 <unk>, then WORDS in order. A line break is the token "\\n"."""

    def __init__(self) -> None:
        self.vocab: tuple[str, ...] = SPECIAL + WORDS
        self.ids = {w: i for i, w in enumerate(self.vocab)}
        self.bos_id, self.unk_id = 1, 2

    def __len__(self) -> int:
        return len(self.vocab)

    def encode(self, text: str, bos: bool = True) -> list[int]:
        """Ids of the words of text (lower-cased; "\\n" is a word of its own; unknown words map to <unk>),
        preceded by <bos> unless bos is False."""
        words = text.lower().replace("\n", " \n ").split(" ")
        ids = [self.ids.get(w, self.unk_id) for w in words if w]
        return [self.bos_id] + ids if bos else ids

    def decode(self, ids: Sequence[int]) -> str:
        """The words of ids joined by spaces (special tokens left out)."""
        return " ".join(self.vocab[i] for i in ids if i >= len(SPECIAL))
