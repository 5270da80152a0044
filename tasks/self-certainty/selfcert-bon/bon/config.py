"""Configuration of the toy model, of sampling, and of best-of-N selection."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Measure = Literal["self_certainty", "entropy", "distributional_perplexity", "avg_logprob", "perplexity"]
"""Confidence measures of a response (Section 3 of the paper): self-certainty, the entropy-based and the
distributional-perplexity-based distributional confidences, the average log-probability and the perplexity."""

MEASURES: tuple[Measure, ...] = ("self_certainty", "entropy", "distributional_perplexity", "avg_logprob",
                                 "perplexity")

Method = Literal["max", "majority", "borda"]
"""How one answer is chosen among the N responses: the response of highest confidence, plain majority voting
over the extracted answers (self-consistency), or Borda voting with confidence ranks (Section 4)."""


@dataclass(frozen=True)
class ModelConfig:
    """The toy language model (bon/toy_lm.py)."""

    hidden_size: int = 16  # width of the recurrent state
    seed: int = 0  # seeds the model's weights


@dataclass(frozen=True)
class SamplingConfig:
    """How responses are sampled (bon/sampling.py)."""

    temperature: float = 1.0  # tokens are drawn from softmax(logits / temperature)
    max_new_tokens: int = 24  # a response ends after this many tokens if it has not emitted EOS


@dataclass(frozen=True)
class SelectionConfig:
    """How the final answer is chosen among the sampled responses."""

    method: Method = "borda"
    measure: Measure = "self_certainty"  # the confidence that orders the responses
    power: float = 0.5  # p of Borda voting (method "borda" only), p >= 0


@dataclass(frozen=True)
class BestOfNConfig:
    """One best-of-N run for one prompt."""

    n: int = 8  # N: responses sampled per prompt
    score_batch_size: int = 8  # responses per forward pass of the model when they are scored afterwards
    streaming: bool = False  # score the responses while they are sampled instead of with extra forward passes
    model: ModelConfig = field(default_factory=ModelConfig)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    selection: SelectionConfig = field(default_factory=SelectionConfig)
