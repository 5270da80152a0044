"""The task model: a deterministic stand-in for an LLM that follows the operations its instruction asks for."""
from __future__ import annotations

import re

# Every operation the task model knows, keyed by the phrase that asks for it, in the order it applies them.
_OPERATIONS: tuple[tuple[str, str], ...] = (
    ("lowercase", "lowercase"),
    ("uppercase", "uppercase"),
    ("remove digits", "remove_digits"),
    ("collapse spaces", "collapse_spaces"),
    ("drop duplicate words", "dedupe"),
    ("sort words", "sort"),
    ("reverse words", "reverse"),
    ("join with hyphens", "hyphenate"),
)
KNOWN_PHRASES: tuple[str, ...] = tuple(phrase for phrase, _ in _OPERATIONS)


def _apply(op: str, text: str) -> str:
    if op == "lowercase":
        return text.lower()
    if op == "uppercase":
        return text.upper()
    if op == "remove_digits":
        return re.sub(r"[0-9]", "", text)
    if op == "collapse_spaces":
        return " ".join(text.split())
    words = text.split()
    if op == "dedupe":
        words = list(dict.fromkeys(words))
    elif op == "sort":
        words = sorted(words)
    elif op == "reverse":
        words = words[::-1]
    return "-".join(words) if op == "hyphenate" else " ".join(words)


class RuleLM:
    """Answers a module call: applies each known operation the instruction mentions (case-insensitive), in the
    model's fixed order, to the module's input. Unknown text in the instruction is ignored."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, instruction: str, text: str) -> str:
        self.calls += 1
        wanted = instruction.lower()
        for phrase, op in _OPERATIONS:
            if phrase in wanted:
                text = _apply(op, text)
        return text
