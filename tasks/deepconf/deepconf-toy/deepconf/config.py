"""Configuration of the toy model, of sampling and of DeepConf's offline and online modes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Measure = Literal["mean", "bottom", "lowest", "tail"]
"""Trace confidence measures: the average trace confidence, the bottom group confidence, the lowest group
confidence and the tail confidence (Section 3.1 of the paper)."""

MEASURES: tuple[Measure, ...] = ("mean", "bottom", "lowest", "tail")


@dataclass(frozen=True)
class ModelConfig:
    """The toy language model (deepconf/toy_lm.py)."""

    hidden_size: int = 24  # width of the recurrent state
    seed: int = 0  # seeds the model's weights


@dataclass(frozen=True)
class SamplingConfig:
    """How one trace is sampled (deepconf/sampling.py)."""

    temperature: float = 1.0  # the next-token distribution is softmax(logits / temperature)
    max_new_tokens: int = 48  # a trace ends after this many tokens if it has not emitted EOS


@dataclass(frozen=True)
class ConfidenceConfig:
    """Token, group and trace confidence (Section 3.1)."""

    top_k: int = 5  # k: the most likely tokens of each next-token distribution in the token confidence
    window: int = 8  # n: tokens per group; groups slide by one token
    bottom_percent: int = 10  # the "bottom" measure averages the ceil(bottom_percent * G / 100) lowest of G groups
    tail_tokens: int = 8  # the "tail" measure averages the confidence of the last tail_tokens tokens


@dataclass(frozen=True)
class OfflineConfig:
    """Offline DeepConf (Section 3.2): confidence filtering and confidence-weighted majority voting."""

    measure: Measure = "bottom"  # the trace confidence used to filter and to weigh the votes
    keep_percent: int = 10  # eta: the ceil(keep_percent * M / 100) most confident of M answered traces vote


@dataclass(frozen=True)
class OnlineConfig:
    """Online DeepConf (Section 3.3): warm-up threshold, early stopping and adaptive sampling."""

    warmup_traces: int = 8  # N_init: traces generated in full to set the stopping threshold
    budget: int = 32  # B: the most traces generated for one prompt, warm-up traces included
    consensus: float = 0.95  # tau: sampling stops once the consensus reaches it
    # eta: s = numpy.percentile(lowest group confidences of all warm-up traces, 100 - eta) (linear interpolation)
    keep_percent: int = 10


@dataclass(frozen=True)
class DeepConfConfig:
    """Everything a DeepConf run needs; the defaults run on CPU in a second."""

    model: ModelConfig = field(default_factory=ModelConfig)
    sampling: SamplingConfig = field(default_factory=SamplingConfig)
    confidence: ConfidenceConfig = field(default_factory=ConfidenceConfig)
    offline: OfflineConfig = field(default_factory=OfflineConfig)
    online: OnlineConfig = field(default_factory=OnlineConfig)
