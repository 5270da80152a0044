"""Records: a sampled reasoning trace, a vote over traces, the outcome of an online run."""
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class Trace:
    """One sampled reasoning trace.

    token_ids: the T generated tokens (the prompt excluded; EOS included when the trace emitted it).
    logprobs:  (T, V) float64, row t is the log-probability of every vocabulary token under the distribution
               token t was sampled from.
    answer:    the trace's answer (deepconf.answers.extract_answer of token_ids), None if it has none.
    stopped:   True when generation was stopped early by the caller's stop rule.
    """

    token_ids: list[int]
    logprobs: torch.Tensor
    answer: str | None
    stopped: bool = False

    @property
    def num_tokens(self) -> int:
        """T: the tokens generated for this trace."""
        return len(self.token_ids)


@dataclass
class Vote:
    """The outcome of a (confidence-weighted) majority vote.

    answer: the answer with the largest total weight; None when no trace voted.
    totals: the total weight of each answer that received a vote.
    voters: the indices of the traces that voted, ascending.
    """

    answer: str | None
    totals: dict[str, float] = field(default_factory=dict)
    voters: list[int] = field(default_factory=list)


@dataclass
class OnlineResult:
    """The outcome of online DeepConf on one prompt.

    vote:      the final vote; its voters index into `traces`.
    threshold: s, the stopping threshold set by the warm-up traces.
    traces:    every trace generated, in generation order, the warm-up traces first.
    consensus: beta of the final vote (0.0 when no trace voted).
    """

    vote: Vote
    threshold: float
    traces: list[Trace]
    consensus: float

    @property
    def num_tokens(self) -> int:
        """Tokens generated over all traces, the early-stopped ones included."""
        return sum(t.num_tokens for t in self.traces)
