"""The synthetic task: noisy word lists to be cleaned and formatted, and the minibatch sampler."""
from __future__ import annotations

import random
from dataclasses import dataclass

from gepa.lm import RuleLM

VOCAB = ("apple", "birch", "cedar", "delta", "ember", "fjord", "grove", "heron", "iris", "juniper")
GOLD_INSTRUCTIONS = ("lowercase; remove digits; collapse spaces", "drop duplicate words; sort words; join with hyphens")
"""What a perfect program asks each module to do (used only to build the gold outputs)."""


@dataclass(frozen=True)
class Example:
    """One task instance: the raw input, the gold output of the `clean` module and the gold final answer."""

    text: str
    gold_clean: str
    gold_answer: str


def make_example(text: str) -> Example:
    """The instance for `text`, with its gold outputs."""
    lm = RuleLM()
    clean = lm(GOLD_INSTRUCTIONS[0], text)
    return Example(text, clean, lm(GOLD_INSTRUCTIONS[1], clean))


def _noisy_word(rng: random.Random) -> str:
    word = rng.choice(VOCAB)
    if rng.random() < 0.3:
        word = word.capitalize() if rng.random() < 0.5 else word.upper()
    if rng.random() < 0.25:
        word += str(rng.randrange(10))
    return word


def make_examples(n: int, rng: random.Random) -> list[Example]:
    """`n` instances of 2 to 5 words, each with a chance of capitals, digits, a repeated word and double spaces."""
    examples = []
    for _ in range(n):
        words = [_noisy_word(rng) for _ in range(rng.randint(2, 5))]
        if rng.random() < 0.3:
            words.insert(rng.randrange(len(words) + 1), words[0])
        gap = "  " if rng.random() < 0.3 else " "
        examples.append(make_example(gap.join(words)))
    return examples


def split_train(trainset: list[Example], n_pareto: int) -> tuple[list[Example], list[Example]]:
    """(D_feedback, D_pareto): the last `n_pareto` instances form D_pareto, the others D_feedback."""
    if not 0 < n_pareto < len(trainset):
        raise ValueError(f"n_pareto must be in [1, {len(trainset) - 1}], got {n_pareto}")
    return trainset[:-n_pareto], trainset[-n_pareto:]


class MinibatchSampler:
    """Minibatches of indices into D_feedback: an epoch is a shuffled order of all indices, cut into consecutive
    batches; when fewer than `batch_size` indices are left, a new epoch is shuffled and the rest is dropped."""

    def __init__(self, n: int, batch_size: int, rng: random.Random) -> None:
        if not 0 < batch_size <= n:
            raise ValueError(f"batch_size must be in [1, {n}], got {batch_size}")
        self.n, self.batch_size, self.rng = n, batch_size, rng
        self.order: list[int] = []
        self.position = 0

    def next_batch(self) -> list[int]:
        """The next minibatch (a list of `batch_size` distinct indices)."""
        if self.position + self.batch_size > len(self.order):
            self.order = list(range(self.n))
            self.rng.shuffle(self.order)
            self.position = 0
        batch = self.order[self.position:self.position + self.batch_size]
        self.position += self.batch_size
        return batch
