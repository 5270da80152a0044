"""DeepConf: confidence measures of reasoning traces, offline filtering with confidence-weighted voting, and the
online algorithm with a warm-up threshold, early stopping and adaptive sampling."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from deepconf.config import ConfidenceConfig, DeepConfConfig, Measure
from deepconf.sampling import sample_trace
from deepconf.toy_lm import ToyLM
from deepconf.trace import OnlineResult, Trace, Vote


def token_confidence(logprobs: torch.Tensor, k: int) -> torch.Tensor:
    """Token confidence of each position.

    Args:
        logprobs: (..., V) float tensor, log-probabilities of the next-token distribution at each position.
        k: the number of top tokens considered, 1 <= k <= V.

    Returns:
        (...,) tensor of the same dtype: the confidence of each position.

    Raises:
        ValueError: if k is not in [1, V].
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def group_confidences(token_conf: torch.Tensor, window: int) -> torch.Tensor:
    """Group confidence of every group of a trace.

    Args:
        token_conf: (T,) float tensor, the token confidences of one trace, T >= 1.
        window: n, the tokens per group (>= 1). A trace of T >= n tokens has the T - n + 1 groups of n consecutive
            tokens, one ending at each of its tokens from the n-th on; a trace shorter than n has one group, all
            of its tokens.

    Returns:
        (G,) tensor of the same dtype, the group confidences in order of their last token.

    Raises:
        ValueError: if token_conf is not 1-D with at least one element, or window < 1.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def trace_confidence(token_conf: torch.Tensor, measure: Measure, cfg: ConfidenceConfig) -> torch.Tensor:
    """The confidence of one trace under `measure`.

    Args:
        token_conf: (T,) float tensor, the token confidences of the trace, T >= 1.
        measure: "mean", "bottom", "lowest" or "tail" (deepconf.config.Measure).
        cfg: window, bottom_percent and tail_tokens.

    Returns:
        0-d tensor of the same dtype.

    Raises:
        ValueError: for an empty or non-1-D token_conf, or an unknown measure.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def weighted_vote(answers: Sequence[str | None], weights: Sequence[float]) -> Vote:
    """Confidence-weighted majority vote.

    Args:
        answers: the answer of each trace; None for a trace without an answer, which does not vote.
        weights: the weight of each trace's vote (same length as answers).

    Returns:
        Vote over the traces with an answer; ties between answers go to the one that appears first in `answers`.

    Raises:
        ValueError: if answers and weights differ in length.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def deepconf_offline(traces: Sequence[Trace], cfg: DeepConfConfig) -> Vote:
    """Offline DeepConf over complete traces: confidence filtering, then confidence-weighted majority voting.

    Args:
        traces: the sampled traces (each with at least one token); those whose answer is None take no part.
        cfg: cfg.confidence (top_k and the measures' settings) and cfg.offline (measure, keep_percent).

    Returns:
        Vote whose voters index into `traces`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def deepconf_online(lm: ToyLM, prompt: Sequence[int], generator: torch.Generator,
                    cfg: DeepConfConfig) -> OnlineResult:
    """Online DeepConf on one prompt, sampling every trace with deepconf.sampling.sample_trace on `generator`.

    Args:
        lm: the model.
        prompt: the prompt's token ids.
        generator: the random generator all traces are sampled from, one trace after another.
        cfg: cfg.sampling, cfg.confidence (top_k, window) and cfg.online. The group confidence that can stop a
            trace is checked at each of its tokens from the window-th on.

    Returns:
        OnlineResult.

    Raises:
        ValueError: unless 1 <= cfg.online.warmup_traces <= cfg.online.budget.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
