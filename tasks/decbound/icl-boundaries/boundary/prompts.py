"""Text prompts for in-context classification of 2-D points."""
from __future__ import annotations

import re

import numpy as np

LABEL_NAMES = ("Foo", "Bar")  # semantically neutral class names, so the learner cannot rely on priors


def format_point(x: np.ndarray, decimals: int = 2) -> str:
    return " ".join(f"{v:.{decimals}f}" for v in x)


def build_prompt(context_X: np.ndarray, context_y: np.ndarray, query: np.ndarray, decimals: int = 2) -> str:
    """In-context examples as "Input: x1 x2 / Label: name" blocks, then the query with an empty label."""
    blocks = [f"Input: {format_point(x, decimals)}\nLabel: {LABEL_NAMES[int(c)]}" for x, c in zip(context_X, context_y)]
    blocks.append(f"Input: {format_point(query, decimals)}\nLabel:")
    return "Given pairs of numbers and their labels, predict the label for a new input pair.\n\n" + "\n\n".join(blocks)


_EXAMPLE = re.compile(r"Input: (\S+) (\S+)\nLabel: (\w+)")
_QUERY = re.compile(r"Input: (\S+) (\S+)\nLabel:$")


def parse_prompt(prompt: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Inverse of `build_prompt`: (context_X, context_y, query) at the prompt's precision."""
    examples = _EXAMPLE.findall(prompt)
    X = np.array([[float(a), float(b)] for a, b, _ in examples], dtype=np.float64).reshape(-1, 2)
    y = np.array([LABEL_NAMES.index(name) for _, _, name in examples], dtype=np.int64)
    q = _QUERY.search(prompt)
    if q is None:
        raise ValueError("prompt has no query")
    return X, y, np.array([float(q.group(1)), float(q.group(2))])


def parse_answer(text: str) -> int | None:
    """The class named first in a model's answer, or None if it names none."""
    m = re.search("|".join(LABEL_NAMES), text)
    return None if m is None else LABEL_NAMES.index(m.group(0))
