"""A tiny seeded reasoning model over the toy tokenizer.

A question is a few digits joined by "+"; its true answer is their sum modulo 10. The model reads the question,
thinks (a random recurrent readout plus a grammar: the end-of-thinking delimiter becomes likelier as the
thinking grows), then writes "Answer:" and a digit. Every "check" or "Wait" in its thinking pulls the answer
digit toward the true answer, so longer, more careful thinking answers better: test-time scaling in miniature.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import torch

from s1.config import ModelConfig
from s1.tokenizer import ToyTokenizer


class Phase(Enum):
    QUESTION = "question"
    THINKING = "thinking"
    ANSWER = "answer"


@dataclass(frozen=True)
class State:
    """The model's state after a prefix: recurrent state, phase, evidence gathered while thinking, the true
    answer of the question, thinking and answer tokens so far, and the prefix's last token (-1 if empty)."""

    hidden: torch.Tensor
    phase: Phase
    evidence: int
    truth: int
    thinking: int
    answer: int
    last: int


class ToyReasoner:
    """h' = tanh(W h + E[token]); logits = h R + grammar (float64, seeded)."""

    def __init__(self, tokenizer: ToyTokenizer, cfg: ModelConfig | None = None) -> None:
        cfg = cfg or ModelConfig()
        self.tok, self.cfg = tokenizer, cfg
        g = torch.Generator().manual_seed(cfg.seed)
        v, h = tokenizer.vocab_size, cfg.hidden_size
        self.embed = torch.randn(v, h, generator=g, dtype=torch.float64)
        self.recur = torch.randn(h, h, generator=g, dtype=torch.float64) * (1.1 / h**0.5)
        self.readout = torch.randn(h, v, generator=g, dtype=torch.float64) * 1.3
        self._digits = torch.tensor([tokenizer.is_digit(i) for i in range(v)])
        self._evidence = {tokenizer.encode("check")[0], tokenizer.encode("Wait")[0]}
        self._answer_mark = tokenizer.encode("Answer:")[0]
        self._final = tokenizer.encode("Final")[0]

    def start(self, prompt_ids: Sequence[int]) -> State:
        """The state after reading the question `prompt_ids`."""
        digits = [int(self.tok.tokens[t]) for t in prompt_ids if self.tok.is_digit(t)]
        state = State(torch.zeros(self.embed.shape[1], dtype=torch.float64), Phase.QUESTION, 0, sum(digits) % 10,
                      0, 0, -1)
        for t in prompt_ids:
            state = self.advance(state, t)
        return state

    def advance(self, state: State, token: int) -> State:
        """The state after appending `token` (generated or forced)."""
        hidden = torch.tanh(self.recur @ state.hidden + self.embed[token])
        phase, evidence, thinking, answer = state.phase, state.evidence, state.thinking, state.answer
        if token == self.tok.think_id:
            phase = Phase.THINKING
        elif token == self.tok.end_think_id:
            phase = Phase.ANSWER
        elif phase is Phase.THINKING:
            thinking += 1
            evidence += token in self._evidence
        elif phase is Phase.ANSWER:
            answer += 1
        return State(hidden, phase, evidence, state.truth, thinking, answer, token)

    def logits(self, state: State) -> torch.Tensor:
        """(V,) float64 logits of the next token after the prefix that led to `state`."""
        out = torch.tanh(state.hidden) @ self.readout
        bias = torch.zeros_like(out)
        tok, last_token = self.tok, state.last
        if state.phase is Phase.THINKING:
            bias[tok.eos_id] = bias[tok.think_id] = -1e4
            bias[tok.end_think_id] = -4.0 + 0.35 * state.thinking
            bias[self._final] = bias[self._answer_mark] = -1e4
        elif state.phase is Phase.ANSWER:
            bias[tok.think_id] = bias[tok.end_think_id] = -1e4
            if last_token in (self._answer_mark,):
                bias += torch.where(self._digits, 6.0, -1e4)
                bias[tok.digit_id(state.truth)] += self.cfg.evidence_gain * state.evidence
            elif last_token == self._final:
                bias[self._answer_mark] = 1e4
            elif tok.is_digit(last_token):
                bias[tok.eos_id] = 8.0
            else:
                bias[self._answer_mark] = 6.0
        return out + bias
