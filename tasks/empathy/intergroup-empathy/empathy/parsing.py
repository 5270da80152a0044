"""From a free-text answer to an intensity on the 0-100 scale."""

from __future__ import annotations

import re

INVALID = -1  # refusals and answers without a usable number

_REFUSALS = ("I cannot", "I can't", "I'm not able", "As an AI")


def parse_intensity(response: str) -> int:
    """The first integer in [0, 100] in the answer, or ``INVALID`` for refusals and unusable answers."""
    text = str(response).strip()
    if text.startswith(_REFUSALS):
        return INVALID
    for match in re.findall(r"\b\d+\b", text):
        value = int(match)
        if 0 <= value <= 100:
            return value
    return INVALID
