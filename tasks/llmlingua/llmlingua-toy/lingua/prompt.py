"""Prompts, token-level selection helpers, and the results of compression."""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Prompt:
    """A prompt x = (x^ins, x^dems, x^que) as text."""

    instruction: str
    demonstrations: tuple[str, ...]
    question: str


@dataclass(frozen=True)
class TokenizedPrompt:
    """A prompt as token ids (no beginning-of-sequence token). Every part is non-empty.

    Raises:
        ValueError: if the instruction or the question is empty, if there is no demonstration, or if a
            demonstration is empty.
    """

    instruction: list[int]
    demonstrations: list[list[int]]
    question: list[int]

    def __post_init__(self) -> None:
        if not self.instruction or not self.question:
            raise ValueError("the instruction and the question must be non-empty")
        if not self.demonstrations or not all(self.demonstrations):
            raise ValueError("a prompt needs at least one demonstration, and no empty one")

    @property
    def length(self) -> int:
        """L: the number of tokens of the whole prompt."""
        return len(self.instruction) + sum(len(d) for d in self.demonstrations) + len(self.question)


@dataclass(frozen=True)
class Budget:
    """What the budget controller decides for one prompt (Section 3.1 of the method description)."""

    perplexities: torch.Tensor
    """Perplexity of each demonstration under the small model, float64, shape (N,), in prompt order."""
    demonstration_rate: float
    """tau_dems: the compression rate of the demonstrations."""
    kept: tuple[int, ...]
    """Indices (into the prompt's demonstrations) of the demonstration set D, in ascending order."""
    delta: float
    """Delta tau_{ins,que}: the budget moved to the instruction and the question."""
    instruction_rate: float
    """The rate at which the token-level stage compresses the instruction: tau_ins + Delta tau_{ins,que}."""
    question_rate: float
    """The rate at which the token-level stage compresses the question: tau_que + Delta tau_{ins,que}."""
    kept_demonstration_rate: float
    """The rate at which the token-level stage compresses each demonstration of D: the demonstrations' budget
    tau_dems * L_dems as a fraction of L_D, the number of tokens of D; 0.0 when D is empty."""


@dataclass(frozen=True)
class CompressedPrompt:
    """The result of compressing one prompt."""

    ids: list[int]
    """The compressed prompt's token ids: the kept tokens of every part, in order."""
    text: str
    """`ids` decoded."""
    budget: Budget
    """The budget controller's decisions."""
    parts: list[list[int]]
    """The parts of x' that reached the token-level stage, in prompt order: the instruction, the demonstrations
    of D in ascending index order, the question."""
    masks: list[torch.Tensor]
    """For each part, a bool tensor of the part's length: True where the token is kept."""
    original_length: int
    """L: the number of tokens of the original prompt."""

    @property
    def achieved_rate(self) -> float:
        """Compressed length over original length."""
        return len(self.ids) / self.original_length


def keep_count(length: int, rate: float) -> int:
    """How many of a segment's `length` tokens the token-level stage keeps at compression rate `rate`.

    round-half-up of rate * length, clamped to [0, length] (a rate above 1 keeps every token, a negative rate
    none).
    """
    return min(length, max(0, math.floor(rate * length + 0.5)))


def keep_top(scores: torch.Tensor, count: int) -> torch.Tensor:
    """Bool mask of the `count` largest entries of the 1-D `scores` (ties: the earlier position first)."""
    order = torch.sort(scores, descending=True, stable=True).indices
    mask = torch.zeros(scores.shape[0], dtype=torch.bool)
    mask[order[:count]] = True
    return mask
