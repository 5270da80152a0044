"""Options of speculative sampling."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SpecConfig:
    """Attributes:
        gamma: the number of tokens the draft model proposes per step.
        temperature: the sampling temperature of both models (0 = argmax decoding).
        max_new_tokens: the number of tokens to generate.
    """

    gamma: int = 4
    temperature: float = 1.0
    max_new_tokens: int = 20

    def __post_init__(self) -> None:
        if self.gamma < 1 or self.max_new_tokens < 1 or self.temperature < 0:
            raise ValueError("gamma and max_new_tokens must be >= 1 and temperature >= 0")
