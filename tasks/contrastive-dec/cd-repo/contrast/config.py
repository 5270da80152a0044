"""Options of contrastive decoding."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CDConfig:
    """Attributes:
        alpha: the plausibility threshold: a token is a candidate when the expert gives it at least alpha times the
            probability of the expert's most probable token.
        amateur_temperature: the amateur's logits are divided by it before its softmax.
        beam_size: the number of hypotheses kept by the search (1 = greedy search).
        max_new_tokens: the length of the generated continuation.
    """

    alpha: float = 0.1
    amateur_temperature: float = 1.0
    beam_size: int = 1
    max_new_tokens: int = 12

    def __post_init__(self) -> None:
        if not 0.0 < self.alpha <= 1.0:
            raise ValueError(f"alpha must be in (0, 1], got {self.alpha}")
        if self.amateur_temperature <= 0 or self.beam_size < 1 or self.max_new_tokens < 1:
            raise ValueError("amateur_temperature > 0, beam_size >= 1 and max_new_tokens >= 1 are required")
