"""Settings of one prompt compressor."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CompressionConfig:
    """Rates are fractions of tokens kept (compressed length over original length)."""

    rate: float = 0.5
    """tau: the target compression rate of the whole prompt, in (0, 1]."""
    instruction_rate: float = 0.85
    """tau_ins: the compression rate of the instruction before the budget controller's adjustment, in (0, 1]."""
    question_rate: float = 0.9
    """tau_que: the compression rate of the question before the budget controller's adjustment, in (0, 1]."""
    granularity: float = 2.0
    """k: the granular control coefficient of the budget controller, >= 1."""
    segment_size: int = 16
    """Tokens per segment of the iterative token-level compression. Each part of the prompt that reaches the
    token-level stage (the instruction, each kept demonstration, the question) is cut into consecutive segments
    of `segment_size` tokens from its start (the last one may be shorter); a segment never spans two parts."""

    def __post_init__(self) -> None:
        for name in ("rate", "instruction_rate", "question_rate"):
            value = getattr(self, name)
            if not 0.0 < value <= 1.0:
                raise ValueError(f"{name} must lie in (0, 1], got {value}")
        if self.granularity < 1.0:
            raise ValueError(f"granularity must be >= 1, got {self.granularity}")
        if self.segment_size < 1:
            raise ValueError(f"segment_size must be >= 1, got {self.segment_size}")
