"""A tiny seeded recurrent language model that "thinks" in a few words and then answers with digits.

The logits are a random recurrent network's readout plus a small grammar: the answer marker becomes likelier
as the trace grows, digits follow the marker, and the trace tends to end after one or two answer digits.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from deepconf.config import ModelConfig
from deepconf.vocab import ANS, DIGITS, EOS, VOCAB_SIZE, is_digit

_DIGITS = slice(DIGITS[0], DIGITS[-1] + 1)


@dataclass(frozen=True)
class LMState:
    """The model's state after a prefix.

    hidden:        (H,) float64, the recurrent state.
    position:      tokens generated so far (the prompt excluded).
    answer_digits: None before the first answer marker, else the digits emitted since the last marker.
    """

    hidden: torch.Tensor
    position: int
    answer_digits: int | None


def _grammar_biases() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    thinking = torch.zeros(VOCAB_SIZE, dtype=torch.float64)
    thinking[EOS], thinking[ANS], thinking[_DIGITS] = -5.0, -3.5, -1.0
    ramp = torch.zeros(VOCAB_SIZE, dtype=torch.float64)
    ramp[ANS] = 0.18  # per generated token: the answer marker becomes likelier
    marker = torch.full((VOCAB_SIZE,), -5.0, dtype=torch.float64)
    marker[_DIGITS] = 3.0
    answer = torch.zeros(VOCAB_SIZE, dtype=torch.float64)
    answer[ANS] = -3.0
    return thinking, ramp, marker, answer


class ToyLM:
    """Embedding, a plain recurrent cell h' = tanh(W h + E[token]) and a linear readout (float64, seeded)."""

    def __init__(self, cfg: ModelConfig | None = None) -> None:
        cfg = cfg or ModelConfig()
        g = torch.Generator().manual_seed(cfg.seed)
        h = cfg.hidden_size
        self.embed = torch.randn(VOCAB_SIZE, h, generator=g, dtype=torch.float64)
        self.recur = torch.randn(h, h, generator=g, dtype=torch.float64) * (1.2 / h**0.5)
        self.readout = torch.randn(h, VOCAB_SIZE, generator=g, dtype=torch.float64) * 1.5
        self._thinking, self._ramp, self._marker, self._answer = _grammar_biases()

    @property
    def vocab_size(self) -> int:
        """V."""
        return VOCAB_SIZE

    def start(self, prompt: Sequence[int]) -> LMState:
        """The state after reading `prompt` (token ids; may be empty)."""
        hidden = torch.zeros(self.embed.shape[1], dtype=torch.float64)
        for tok in prompt:
            hidden = self._cell(hidden, tok)
        return LMState(hidden, 0, None)

    def next_logits(self, state: LMState) -> torch.Tensor:
        """(V,) float64 logits of the next token."""
        logits = state.hidden @ self.readout
        if state.answer_digits is None:
            return logits + self._thinking + state.position * self._ramp
        if state.answer_digits == 0:
            return logits + self._marker
        bias = self._answer.clone()
        bias[EOS] = 1.0 + 3.0 * state.answer_digits
        return logits + bias

    def advance(self, state: LMState, token: int) -> LMState:
        """The state after appending `token`."""
        digits = state.answer_digits
        if token == ANS:
            digits = 0
        elif digits is not None and is_digit(token):
            digits += 1
        return LMState(self._cell(state.hidden, token), state.position + 1, digits)

    def _cell(self, hidden: torch.Tensor, token: int) -> torch.Tensor:
        return torch.tanh(self.recur @ hidden + self.embed[token])
