"""Configuration of the toy model and of budget-forced decoding."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ModelConfig:
    """The toy reasoning model (s1/model.py)."""

    hidden_size: int = 16  # width of the recurrent state
    seed: int = 0  # seeds the weights
    evidence_gain: float = 0.6  # how much each "check"/"Wait" in the thinking pulls the answer toward the truth


@dataclass(frozen=True)
class BudgetConfig:
    """Budget forcing (Section 3.1 of the paper) for one generation, in thinking tokens.

    Thinking tokens are the tokens of the thinking segment after the start-of-thinking delimiter: the ones the
    model generated and the ones budget forcing appended to it ("Wait"); the delimiters themselves are not
    thinking tokens. Decoding is greedy (the most likely token at every step; the first on a tie).
    """

    max_thinking_tokens: int | None = None  # maximum: None for no maximum
    min_thinking_tokens: int = 0  # minimum: the end of thinking is suppressed while fewer thinking tokens exist
    min_waits: int = 0  # the end of thinking is also suppressed until it has been suppressed this many times
    wait: str = "Wait"  # appended to the thinking in place of a suppressed end-of-thinking delimiter
    answer_prefix: str = "Final Answer:"  # appended after the delimiter when the maximum ends the thinking
    max_answer_tokens: int = 8  # the answer segment ends after this many generated tokens if no <eos> came
