"""Verifiable toy problems: sums of digits modulo 10, labelled by difficulty (the number of terms)."""
from __future__ import annotations

from dataclasses import dataclass

import torch

PAD, EOS, PLUS, EQUALS = 0, 1, 2, 3
DIGIT0 = 4  # token of digit d is DIGIT0 + d
THINK = 14  # a filler "thinking" token
VOCAB_SIZE = 15
MIN_TERMS = 2


@dataclass(frozen=True)
class ProblemSet:
    """M problems, prompts padded on the left with PAD to a common length P.

    prompts:     (M, P) long, "d + d + ... =" tokens.
    answers:     (M,) long, the answer digit (sum of the terms modulo 10).
    difficulty:  (M,) long, 0 for the easiest problems (MIN_TERMS terms), one more per extra term.
    """

    prompts: torch.Tensor
    answers: torch.Tensor
    difficulty: torch.Tensor

    def __len__(self) -> int:
        return self.prompts.shape[0]


def digit_token(d: torch.Tensor) -> torch.Tensor:
    """The token of each digit."""
    return d + DIGIT0


def make_problems(num: int, levels: int, generator: torch.Generator) -> ProblemSet:
    """`num` random problems spread over `levels` difficulty levels."""
    difficulty = torch.arange(num) % levels
    longest = MIN_TERMS + levels - 1
    width = 2 * longest
    prompts = torch.full((num, width), PAD, dtype=torch.long)
    answers = torch.zeros(num, dtype=torch.long)
    for i in range(num):
        terms = torch.randint(0, 10, (MIN_TERMS + int(difficulty[i]),), generator=generator)
        tokens = [PLUS if j % 2 else int(digit_token(terms[j // 2])) for j in range(2 * len(terms) - 1)]
        tokens.append(EQUALS)
        prompts[i, width - len(tokens):] = torch.tensor(tokens)
        answers[i] = terms.sum() % 10
    return ProblemSet(prompts, answers, difficulty)


def curriculum_pool(problems: ProblemSet, iteration: int, curriculum_iters: int) -> torch.Tensor:
    """Indices of the problems open at `iteration`: the easiest level first, one more level every
    curriculum_iters / levels iterations, all levels from iteration `curriculum_iters` on."""
    levels = int(problems.difficulty.max()) + 1
    if curriculum_iters <= 0 or iteration >= curriculum_iters:
        return torch.arange(len(problems))
    open_levels = 1 + (iteration * levels) // curriculum_iters
    return torch.nonzero(problems.difficulty < open_levels).squeeze(1)


def response_mask(lengths: torch.Tensor, width: int) -> torch.Tensor:
    """(..., width) bool: True at the first lengths[...] positions of each response."""
    return torch.arange(width) < lengths.unsqueeze(-1)
