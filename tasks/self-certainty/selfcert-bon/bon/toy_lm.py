"""A tiny seeded recurrent language model that "reasons" in a few words, then writes `= d <eos>`.

Its logits are a random recurrent network's readout plus a small grammar: the answer marker becomes likelier as
the sequence grows, digits follow the marker (most often the last digit of the sum of the digits read before
the first marker), and the response tends to end after one or two answer digits.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

from bon.config import ModelConfig
from bon.vocab import ANS, BOS, DIGITS, EOS, PAD, VOCAB_SIZE

_D0, _D9 = DIGITS[0], DIGITS[-1]


@dataclass(frozen=True)
class LMState:
    """The state of B sequences after their prefixes.

    hidden:   (B, H) float64, the recurrent state.
    position: (B,) int64, tokens read so far.
    key:      (B,) int64, the sum modulo 10 of the digits read before the first answer marker.
    digits:   (B,) int64, -1 before the first answer marker, else the digits read since the last marker.
    """

    hidden: torch.Tensor
    position: torch.Tensor
    key: torch.Tensor
    digits: torch.Tensor


def _grammar_biases() -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Biases while reasoning, its growth per token read, right after an answer marker, after answer digits."""
    digits = slice(_D0, _D9 + 1)
    thinking = torch.zeros(VOCAB_SIZE, dtype=torch.float64)
    thinking[EOS], thinking[ANS], thinking[digits] = -4.0, -4.0, -3.0
    ramp = torch.zeros(VOCAB_SIZE, dtype=torch.float64)
    ramp[ANS] = 0.3
    marker = torch.full((VOCAB_SIZE,), -4.0, dtype=torch.float64)
    marker[digits] = 0.0
    answered = torch.zeros(VOCAB_SIZE, dtype=torch.float64)
    answered[ANS], answered[EOS] = -3.0, 1.0
    for bias in (thinking, marker, answered):
        bias[PAD] = bias[BOS] = -12.0
    return thinking, ramp, marker, answered


class ToyLM:
    """Embedding, a recurrent cell h' = tanh(h W + E[token]) and a linear readout, all float64 and seeded."""

    def __init__(self, cfg: ModelConfig | None = None) -> None:
        cfg = cfg or ModelConfig()
        g = torch.Generator().manual_seed(cfg.seed)
        h = cfg.hidden_size
        self.embed = torch.randn(VOCAB_SIZE, h, generator=g, dtype=torch.float64)
        self.recur = torch.randn(h, h, generator=g, dtype=torch.float64) * (1.1 / h**0.5)
        self.readout = torch.randn(h, VOCAB_SIZE, generator=g, dtype=torch.float64) * 0.6
        self._biases = _grammar_biases()
        self._end = torch.zeros(VOCAB_SIZE, dtype=torch.float64)
        self._end[EOS] = 3.0  # per answer digit written: the response likelier ends

    @property
    def vocab_size(self) -> int:
        """V."""
        return VOCAB_SIZE

    def init_state(self, batch_size: int) -> LMState:
        """The state of `batch_size` empty sequences."""
        zeros = torch.zeros(batch_size, dtype=torch.long)
        return LMState(torch.zeros(batch_size, self.embed.shape[1], dtype=torch.float64), zeros, zeros,
                       torch.full((batch_size,), -1, dtype=torch.long))

    def step(self, state: LMState, tokens: torch.Tensor) -> tuple[LMState, torch.Tensor]:
        """Read one token per sequence.

        Args:
            state: the state of B sequences.
            tokens: (B,) int64, the next token of each sequence.

        Returns:
            The new state, and (B, V) float64 logits of the distribution of each sequence's following token.
        """
        is_digit = (tokens >= _D0) & (tokens <= _D9)
        before = state.digits < 0
        key = torch.where(before & is_digit, (state.key + tokens - _D0) % 10, state.key)
        digits = torch.where(tokens == ANS, torch.zeros_like(state.digits),
                             torch.where(~before & is_digit, state.digits + 1, state.digits))
        hidden = torch.tanh(state.hidden @ self.recur + self.embed[tokens])
        new = LMState(hidden, state.position + 1, key, digits)
        return new, hidden @ self.readout + self._grammar(new)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        """Logits of a whole batch (teacher forcing).

        Args:
            input_ids: (B, T) int64 token ids (a `Batch`'s input_ids).

        Returns:
            (B, T, V) float64: logits[b, t] are the logits of the distribution of the token at position t + 1 of
            row b given the tokens at positions 0..t. Positions after a row's last real token hold the logits of
            its padding, which mean nothing.
        """
        state = self.init_state(input_ids.shape[0])
        out = []
        for t in range(input_ids.shape[1]):
            state, logits = self.step(state, input_ids[:, t])
            out.append(logits)
        return torch.stack(out, dim=1)

    __call__ = forward

    def _grammar(self, state: LMState) -> torch.Tensor:
        """(B, V) float64 biases of the small grammar, one row per sequence."""
        thinking, ramp, marker, answered = self._biases
        pos = state.position.to(torch.float64).unsqueeze(1)
        count = state.digits.clamp(min=0).to(torch.float64).unsqueeze(1)
        phase = state.digits.unsqueeze(1)
        key = torch.zeros(state.key.shape[0], VOCAB_SIZE, dtype=torch.float64)
        key[torch.arange(state.key.shape[0]), _D0 + state.key] = 3.0
        return torch.where(phase < 0, thinking + pos * ramp,
                           torch.where(phase == 0, marker + key, answered + count * self._end))
