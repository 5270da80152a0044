"""A simulated inference attack: an adversary tries to decode each obfuscated value back to plain text.

The attacker knows the feature name and sees the obfuscated sequence, like the decryption prompt of the paper.
It inverts the emoji lexicon where it can, reads keycap digits, and gives up on anything it cannot read, so its
answers are partly right, partly wrong, and sometimes empty.
"""

from __future__ import annotations

import random
import re

from emojicrypt.obfuscate import KEYCAPS, LEXICON, SEPARATOR

_REVERSE = {emoji: word for word, emoji in sorted(LEXICON.items(), key=lambda kv: -len(kv[1]))}
_DIGITS = {cap: d for d, cap in KEYCAPS.items()}


class SimulatedDecrypter:
    """Deterministic attacker; ``noise`` is the chance of garbling a decoded word (seeded)."""

    def __init__(self, noise: float = 0.2, seed: int = 0):
        self.noise = noise
        self.rng = random.Random(seed)

    def decode(self, feature: str, sequence: str) -> str:
        words, rest = [], sequence
        while rest:
            for cap, digit in _DIGITS.items():
                if rest.startswith(cap):
                    words.append(digit)
                    rest = rest[len(cap):]
                    break
            else:
                for emoji in sorted(_REVERSE, key=len, reverse=True):
                    if rest.startswith(emoji):
                        word = _REVERSE[emoji]
                        if self.rng.random() < self.noise:
                            word = word[::-1]
                        words.append(" " + word + " ")
                        rest = rest[len(emoji):]
                        break
                else:
                    rest = rest[1:]  # unreadable symbol: skipped
        text = re.sub(r"\s+", " ", "".join(words)).strip()
        return f"\n{text}\n" if self.rng.random() < 0.3 else text  # LLM answers often come with new lines


def attack_dictionary(dictionary: dict[str, str], decrypter: SimulatedDecrypter) -> dict[str, str]:
    """``{original feature level: "Feature: <name>, Value: <recovered value>"}`` for every obfuscated entry."""
    pairs = {}
    for level, sequence in dictionary.items():
        feature = level.split(SEPARATOR, 1)[0]
        pairs[level] = feature + SEPARATOR + decrypter.decode(feature, sequence)
    return pairs
