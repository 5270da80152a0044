"""Toy arithmetic word problems and chain-of-thought demonstrations (generated, no files)."""

from __future__ import annotations

import random
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Demonstration:
    """A worked example: question, reasoning steps (one sentence each), final answer.

    ``keyword``/``keyword_meaning`` feed the "think about the word" expansion and ``equation``
    the "make equation" expansion; either may be missing (None).
    """

    question: str
    steps: tuple[str, ...]
    answer: str
    keyword: str | None = None
    keyword_meaning: str | None = None
    equation: str | None = None


@dataclass(frozen=True)
class Problem:
    question: str
    answer: int
    operations: tuple[tuple[str, int], ...] = field(default=())
    start: int = 0


NAMES = ["Ann", "Ben", "Cleo", "Dev", "Emma", "Farid"]
ITEMS = ["apples", "marbles", "stickers", "books", "coins"]
VERBS = {"+": "buys {n} more", "-": "gives away {n}"}


def make_problem(rng: random.Random, n_ops: int) -> Problem:
    name, item = rng.choice(NAMES), rng.choice(ITEMS)
    start = rng.randint(2, 20)
    ops: list[tuple[str, int]] = []
    value = start
    for _ in range(n_ops):
        op = rng.choice("+-")
        n = rng.randint(1, 9) if op == "+" else rng.randint(1, max(1, min(9, value)))
        value = value + n if op == "+" else value - n
        ops.append((op, n))
    actions = ", then ".join(VERBS[op].format(n=n) for op, n in ops)
    question = f"{name} has {start} {item}. {name} {actions}. How many {item} does {name} have now?"
    return Problem(question=question, answer=value, operations=tuple(ops), start=start)


def worked_example(problem: Problem, with_keyword: bool, with_equation: bool) -> Demonstration:
    steps = [f"At the start there are {problem.start}."]
    value = problem.start
    for op, n in problem.operations:
        new = value + n if op == "+" else value - n
        word = "adds" if op == "+" else "removes"
        steps.append(f"The next action {word} {n}, so {value} {op} {n} = {new}.")
        value = new
    equation = str(problem.start) + "".join(f" {op} {n}" for op, n in problem.operations) + f" = {value}"
    return Demonstration(
        question=problem.question,
        steps=tuple(steps),
        answer=str(value),
        keyword="have now" if with_keyword else None,
        keyword_meaning="the amount left after every action in the question" if with_keyword else None,
        equation=equation if with_equation else None,
    )


def demonstrations(k: int, seed: int = 0) -> list[Demonstration]:
    """k worked examples with 1-5 operations each (so 2-6 reasoning steps)."""
    rng = random.Random(seed)
    return [worked_example(make_problem(rng, rng.randint(1, 5)), rng.random() < 0.7, rng.random() < 0.7)
            for _ in range(k)]


def eval_problems(n: int, seed: int = 1) -> list[Problem]:
    rng = random.Random(seed)
    return [make_problem(rng, rng.randint(2, 6)) for _ in range(n)]
