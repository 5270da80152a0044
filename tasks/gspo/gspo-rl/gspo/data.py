"""The toy reasoning task: a question is a few digits, the answer is their sum modulo `num_digits`.

Token ids: PAD = 0 (never generated), EOS = 1, and the digit d is token DIGIT0 + d. A response is a
sequence of tokens ending with EOS (or cut at the length limit); its answer is the digit just before EOS.
"""
from __future__ import annotations

import torch

PAD = 0
EOS = 1
DIGIT0 = 2


def vocab_size(num_digits: int) -> int:
    """Number of token ids: PAD, EOS and the digits."""
    return DIGIT0 + num_digits


class ModularSumTask:
    """Draws questions (prompts of digit tokens) and their ground-truth answers."""

    def __init__(self, num_digits: int, prompt_len: int, seed: int = 0) -> None:
        self.num_digits = num_digits
        self.prompt_len = prompt_len
        self.generator = torch.Generator().manual_seed(seed)

    def sample(self, n: int) -> tuple[torch.Tensor, torch.Tensor]:
        """`n` questions: prompts (n, prompt_len) of token ids and answers (n,) as digits."""
        digits = torch.randint(0, self.num_digits, (n, self.prompt_len), generator=self.generator)
        return digits + DIGIT0, digits.sum(dim=1) % self.num_digits


def response_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """(..., max_len) bool: True at the first `lengths` positions of each response."""
    return torch.arange(max_len) < lengths.unsqueeze(-1)


def is_equivalent(responses: torch.Tensor, lengths: torch.Tensor, answers: torch.Tensor) -> torch.Tensor:
    """Whether each response states the right answer.

    responses: (B, T) token ids, PAD after the end; lengths: (B,) tokens per response (EOS included);
    answers: (B,) digits. A response is right when it ends with EOS and the token before EOS is the
    answer's digit; a response cut at the length limit (no EOS) is wrong. Returns (B,) bool.
    """
    last = responses.gather(1, (lengths - 1).clamp(min=0).unsqueeze(1)).squeeze(1)
    before = responses.gather(1, (lengths - 2).clamp(min=0).unsqueeze(1)).squeeze(1)
    return (last == EOS) & (lengths >= 2) & (before == answers + DIGIT0)


def outcome_reward(correct: torch.Tensor) -> torch.Tensor:
    """The rule-based reward: 1 for a right response, 0 otherwise, in the default float dtype."""
    return correct.to(torch.get_default_dtype())
