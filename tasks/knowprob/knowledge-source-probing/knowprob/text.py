"""String helpers shared by the data-building steps."""

from __future__ import annotations

import re

_WORD_RE = re.compile(r"\w+")
_LM_TOKEN_RE = re.compile(r"\w+|[^\w\s]")


def normalize_entity(name: str) -> str:
    """Canonical form of an entity name: whitespace runs collapsed to one space,
    leading/trailing whitespace removed, case-folded.

    >>> normalize_entity("  New   York ")
    'new york'
    """
    return " ".join(str(name).split()).casefold()


def word_tokens(text: str) -> list[str]:
    """Case-folded word tokens of ``text``: the maximal runs of word characters
    (``re`` class ``\\w``), in order. Punctuation and whitespace separate tokens.

    >>> word_tokens("Saint-Etienne is in FRANCE.")
    ['saint', 'etienne', 'is', 'in', 'france']
    """
    return _WORD_RE.findall(str(text).casefold())


def lm_tokens(text: str) -> list[str]:
    """Tokenisation used by the tiny language model: words and single punctuation
    marks, case preserved."""
    return _LM_TOKEN_RE.findall(text)


def detokenize(tokens: list[str]) -> str:
    """Inverse of :func:`lm_tokens` up to whitespace: punctuation is glued to the
    previous word."""
    out = ""
    for tok in tokens:
        if out and not re.fullmatch(r"[^\w\s]", tok):
            out += " "
        out += tok
    return out
