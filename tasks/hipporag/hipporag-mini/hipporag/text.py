"""Phrase normalisation shared by indexing and querying."""
from __future__ import annotations

import re

_NON_WORD = re.compile(r"[^a-z0-9 ]+")
_SPACES = re.compile(r"\s+")


def normalize_phrase(phrase: str) -> str:
    """Lower-case, drop punctuation, collapse whitespace: the canonical form of a noun phrase (a node's name)."""
    text = _NON_WORD.sub(" ", phrase.lower())
    return _SPACES.sub(" ", text).strip()


def char_ngrams(phrase: str, n: int = 3) -> list[str]:
    """Character n-grams of a phrase padded with '#' at both ends ("ab" -> "#ab", "ab#")."""
    padded = f"#{phrase}#"
    if len(padded) < n:
        return [padded]
    return [padded[i:i + n] for i in range(len(padded) - n + 1)]
