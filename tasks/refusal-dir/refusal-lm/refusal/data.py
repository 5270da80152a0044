"""Toy harmful and harmless instruction sets, drawn deterministically."""
from __future__ import annotations

import random

from .tokenizer import HARMFUL_WORDS, NEUTRAL_WORDS


def harmless_instruction(rng: random.Random) -> str:
    n = rng.randint(2, 6)
    return " ".join(rng.choice(NEUTRAL_WORDS) for _ in range(n))


def harmful_instruction(rng: random.Random) -> str:
    n = rng.randint(2, 6)
    words = [rng.choice(NEUTRAL_WORDS) for _ in range(n - 1)]
    words.insert(rng.randint(0, n - 1), rng.choice(HARMFUL_WORDS))
    return " ".join(words)


def instruction_sets(n: int, seed: int) -> tuple[list[str], list[str]]:
    """n harmful and n harmless instructions."""
    rng = random.Random(seed)
    return [harmful_instruction(rng) for _ in range(n)], [harmless_instruction(rng) for _ in range(n)]


def splits(seed: int = 0, n_train: int = 32, n_val: int = 16, n_test: int = 16) -> dict[str, tuple[list[str], list[str]]]:
    """Disjoint draws for direction extraction ("train"), selection ("val") and evaluation ("test")."""
    return {"train": instruction_sets(n_train, seed + 1), "val": instruction_sets(n_val, seed + 2),
            "test": instruction_sets(n_test, seed + 3)}
