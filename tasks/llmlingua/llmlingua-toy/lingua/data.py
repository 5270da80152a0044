"""Toy math word problems (a GSM8K stand-in): an instruction, solved demonstrations and a question."""
from __future__ import annotations

import random

from lingua.prompt import Prompt

NAMES = ("tom", "anna", "lee", "mia", "sam", "zoe")
ITEMS = ("apples", "books", "coins", "pens", "cards", "shells")
INSTRUCTION = ("please solve the math question step by step . show the reasoning , then give the final "
               "answer as a number .")


def word_problem(rng: random.Random, solved: bool) -> str:
    """One problem; with `solved`, followed by its reasoning and answer."""
    name, item = rng.choice(NAMES), rng.choice(ITEMS)
    a, b, c = rng.randint(2, 20), rng.randint(2, 20), rng.randint(1, 5)
    question = (f"question : {name} has {a} {item} and buys {b} more . then {name} gives {c} {item} to a "
                f"friend . how many {item} does {name} have now ?")
    if not solved:
        return question
    return (f"{question} let's think step by step . {name} starts with {a} {item} . after buying , {name} has "
            f"{a} + {b} = {a + b} {item} . after giving {c} away , {name} has {a + b} - {c} = {a + b - c} . "
            f"the answer is {a + b - c} .")


def make_prompt(num_demonstrations: int, seed: int) -> Prompt:
    """A few-shot prompt with `num_demonstrations` solved problems and one open question."""
    rng = random.Random(seed)
    demonstrations = tuple(word_problem(rng, solved=True) for _ in range(num_demonstrations))
    return Prompt(INSTRUCTION, demonstrations, word_problem(rng, solved=False))


def corpus() -> list[str]:
    """Texts covering the whole toy vocabulary."""
    numbers = " ".join(str(n) for n in range(100))
    return [INSTRUCTION, numbers, " ".join(NAMES + ITEMS),
            word_problem(random.Random(0), solved=True) + " + - = ' s"]
