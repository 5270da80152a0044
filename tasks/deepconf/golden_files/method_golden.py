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
    if not 1 <= k <= logprobs.shape[-1]:
        raise ValueError(f"k must be in [1, {logprobs.shape[-1]}], got {k}")
    top = torch.topk(logprobs, k, dim=-1).values
    return -top.mean(dim=-1)


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
    if token_conf.dim() != 1 or token_conf.numel() == 0:
        raise ValueError("token_conf must be a non-empty 1-D tensor")
    if window < 1:
        raise ValueError(f"window must be >= 1, got {window}")
    if token_conf.numel() < window:
        return token_conf.mean().reshape(1)
    return token_conf.unfold(0, window, 1).mean(dim=-1)


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
    if token_conf.dim() != 1 or token_conf.numel() == 0:
        raise ValueError("token_conf must be a non-empty 1-D tensor")
    if measure == "mean":
        return token_conf.mean()
    if measure == "tail":
        return token_conf[-cfg.tail_tokens:].mean()
    groups = group_confidences(token_conf, cfg.window)
    if measure == "lowest":
        return groups.min()
    if measure == "bottom":
        count = max(1, -(-cfg.bottom_percent * groups.numel() // 100))
        return torch.sort(groups).values[:count].mean()
    raise ValueError(f"unknown measure {measure!r}")


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
    if len(answers) != len(weights):
        raise ValueError("answers and weights must have the same length")
    totals: dict[str, float] = {}
    voters = []
    for i, (answer, weight) in enumerate(zip(answers, weights, strict=True)):
        if answer is None:
            continue
        totals[answer] = totals.get(answer, 0.0) + float(weight)
        voters.append(i)
    best = max(totals, key=lambda a: totals[a]) if totals else None
    return Vote(best, totals, voters)


def deepconf_offline(traces: Sequence[Trace], cfg: DeepConfConfig) -> Vote:
    """Offline DeepConf over complete traces: confidence filtering, then confidence-weighted majority voting.

    Args:
        traces: the sampled traces (each with at least one token); those whose answer is None take no part.
        cfg: cfg.confidence (top_k and the measures' settings) and cfg.offline (measure, keep_percent).

    Returns:
        Vote whose voters index into `traces`.
    """
    k, measure = cfg.confidence.top_k, cfg.offline.measure
    answered = [i for i, t in enumerate(traces) if t.answer is not None]
    conf = {i: float(trace_confidence(token_confidence(traces[i].logprobs, k), measure, cfg.confidence))
            for i in answered}
    ranked = sorted(answered, key=lambda i: -conf[i])
    kept = sorted(ranked[:-(-cfg.offline.keep_percent * len(answered) // 100)])
    vote = weighted_vote([traces[i].answer for i in kept], [conf[i] for i in kept])
    return Vote(vote.answer, vote.totals, [kept[v] for v in vote.voters])


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
    on, conf_cfg = cfg.online, cfg.confidence
    if not 1 <= on.warmup_traces <= on.budget:
        raise ValueError("need 1 <= warmup_traces <= budget")

    def lowest(trace: Trace) -> float:
        return float(trace_confidence(token_confidence(trace.logprobs, conf_cfg.top_k), "lowest", conf_cfg))

    def tally(voting: list[int]) -> tuple[Vote, float]:
        vote = weighted_vote([traces[i].answer for i in voting], [weights[i] for i in voting])
        vote = Vote(vote.answer, vote.totals, [voting[v] for v in vote.voters])
        total = sum(vote.totals.values())
        return vote, (vote.totals[vote.answer] / total if vote.answer is not None else 0.0)

    def stop_rule(threshold: float):
        recent: list[float] = []

        def stop(logprobs: torch.Tensor) -> bool:
            recent.append(float(token_confidence(logprobs, conf_cfg.top_k)))
            if len(recent) < conf_cfg.window:
                return False
            del recent[:-conf_cfg.window]
            return sum(recent) / conf_cfg.window < threshold
        return stop

    traces = [sample_trace(lm, prompt, generator, cfg.sampling) for _ in range(on.warmup_traces)]
    weights = [lowest(t) for t in traces]
    threshold = float(np.percentile(weights, 100 - on.keep_percent))
    voting = list(range(len(traces)))
    vote, beta = tally(voting)
    while beta < on.consensus and len(traces) < on.budget:
        trace = sample_trace(lm, prompt, generator, cfg.sampling, stop=stop_rule(threshold))
        traces.append(trace)
        weights.append(lowest(trace))
        if not trace.stopped:
            voting.append(len(traces) - 1)
            vote, beta = tally(voting)
    return OnlineResult(vote, threshold, traces, beta)
