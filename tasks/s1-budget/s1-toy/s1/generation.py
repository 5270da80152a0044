"""The record of one budget-forced generation."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Generation:
    """One generation: question, thinking segment, answer segment.

    The full token sequence is prompt_ids + [<|think|>] + thinking_ids + [<|answer|>] + answer_ids.

    prompt_ids:   the question's tokens.
    thinking_ids: the thinking tokens, in order: those the model generated and the "Wait" tokens budget forcing
                  appended; no delimiter.
    answer_ids:   the tokens after the end-of-thinking delimiter, in order: the answer prefix when budget forcing
                  appended it, then those the model generated (the final <eos> included when generated).
    waits:        how many times the end of thinking was suppressed (a "Wait" appended each time).
    forced_end:   True when the maximum ended the thinking.
    answer:       s1.answers.extract_answer of answer_ids.
    """

    prompt_ids: list[int]
    thinking_ids: list[int]
    answer_ids: list[int]
    waits: int
    forced_end: bool
    answer: str | None

    @property
    def num_thinking_tokens(self) -> int:
        """The thinking tokens, the quantity the budget controls."""
        return len(self.thinking_ids)
