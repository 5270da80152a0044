"""What speculative sampling returns."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class StepResult:
    """One step of speculative sampling.

    Attributes:
        drafted: the gamma tokens the draft model proposed.
        num_accepted: how many of them were accepted (a prefix of drafted).
        tokens: the tokens the step emits: the accepted drafted tokens followed by one token from the target
            model's side (a corrected token after a rejection, or an extra token when all were accepted).
    """

    drafted: list[int]
    num_accepted: int
    tokens: list[int]


@dataclass
class GenerationResult:
    """A whole generation.

    Attributes:
        tokens: the generated tokens (exactly max_new_tokens of them).
        steps: every step, in order.
        target_calls, draft_calls: forward passes of each model during the generation.
    """

    tokens: list[int]
    steps: list[StepResult] = field(default_factory=list)
    target_calls: int = 0
    draft_calls: int = 0
