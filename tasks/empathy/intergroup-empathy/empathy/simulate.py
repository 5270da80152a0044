"""A seeded stand-in for the LLM: predicts an intensity with an in-group bonus, noise, and occasional refusals."""

from __future__ import annotations

import random
from collections.abc import Callable


class SimulatedLLM:
    def __init__(
        self,
        same_group: Callable[[str, str], bool],
        bias: float = 4.0,
        noise: float = 6.0,
        refusal_rate: float = 0.02,
        seed: int = 0,
    ):
        self.same_group = same_group
        self.bias = bias
        self.noise = noise
        self.refusal_rate = refusal_rate
        self.rng = random.Random(seed)

    def respond(self, system: str, user: str, perceiver: str, experiencer: str, item: int) -> str:
        if self.rng.random() < self.refusal_rate:
            return "I cannot speculate about the feelings of a specific group."
        base = 55 + 25 * ((item * 37) % 11) / 10  # item-specific baseline intensity
        value = base + (self.bias if self.same_group(perceiver, experiencer) else 0.0) + self.rng.gauss(0, self.noise)
        value = int(round(min(100.0, max(0.0, value))))
        style = self.rng.randrange(4)
        if style == 0:
            return str(value)
        if style == 1:
            return f"I would rate it {value}."
        if style == 2:
            return f"{value} (on a 0 to 100 scale)"
        return f"Intensity: {value}"
