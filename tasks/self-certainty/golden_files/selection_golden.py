"""Confidence of sampled responses, selection of one answer among them, and the best-of-N loop."""
from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from bon.answers import extract_answer, same_answer
from bon.batch import Batch, collate
from bon.config import MEASURES, BestOfNConfig, Measure, SelectionConfig
from bon.records import BestOfNResult, Selection
from bon.sampling import sample_responses
from bon.toy_lm import ToyLM


def response_scores(logits: torch.Tensor, batch: Batch, measure: Measure) -> torch.Tensor:
    """Confidence of the response of each row of a batch.

    Args:
        logits: (B, T, V) float tensor, the model's logits for batch.input_ids (the layout of `ToyLM.forward`).
        batch: the padded batch of prompts and responses the logits were computed from.
        measure: one of bon.config.MEASURES.

    Returns:
        (B,) tensor of the logits' dtype: the confidence of each row's response under `measure`; a larger value
        means a more confident response. Computed in the logits' dtype throughout (float32 or float64; no up- or
        down-cast).

    Raises:
        ValueError: if the measure is unknown, the logits' shape does not match the batch, or a row has no
            response token.
    """
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}")
    if logits.dim() != 3 or tuple(logits.shape[:2]) != tuple(batch.input_ids.shape):
        raise ValueError(f"logits of shape {tuple(logits.shape)} do not match the batch")
    lengths = batch.response_mask.sum(dim=1)
    if bool((lengths == 0).any()):
        raise ValueError("every row needs at least one response token")
    logp = torch.log_softmax(logits[:, :-1], dim=-1)
    if measure == "self_certainty":
        terms = -(logp + math.log(logp.shape[-1])).mean(dim=-1)
    elif measure in ("entropy", "distributional_perplexity"):
        terms = -(logp.exp() * logp).sum(dim=-1)
    else:
        terms = logp.gather(-1, batch.input_ids[:, 1:].unsqueeze(-1)).squeeze(-1)
    mask = batch.response_mask[:, 1:]
    mean = torch.where(mask, terms, torch.zeros_like(terms)).sum(dim=1) / lengths.to(terms.dtype)
    if measure == "entropy":
        return -mean
    if measure == "distributional_perplexity":
        return -torch.exp(mean)
    if measure == "perplexity":
        return -torch.exp(-mean)
    return mean


class StreamingScorer:
    """The confidence of responses computed while they are sampled, from the logits sampling produces anyway.

    Pass the instance as the `observer` of `sample_responses`; once sampling is over, `scores()` returns what
    `response_scores` gives for the same responses (scored after [BOS, *prompt]).

    Args:
        n: N, the number of responses being sampled (>= 1).
        measure: one of bon.config.MEASURES.

    Raises:
        ValueError: if n < 1 or the measure is unknown.
    """

    def __init__(self, n: int, measure: Measure) -> None:
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}")
        self.measure = measure
        self.total = torch.zeros(n, dtype=torch.float64)
        self.count = torch.zeros(n, dtype=torch.long)

    def __call__(self, logits: torch.Tensor, tokens: torch.Tensor, active: torch.Tensor) -> None:
        """One generation step (the `Observer` protocol of bon.sampling)."""
        logp = torch.log_softmax(logits.to(torch.float64), dim=-1)
        if self.measure == "self_certainty":
            terms = -(logp + math.log(logp.shape[-1])).mean(dim=-1)
        elif self.measure in ("entropy", "distributional_perplexity"):
            terms = -(logp.exp() * logp).sum(dim=-1)
        else:
            terms = logp.gather(-1, tokens.unsqueeze(-1)).squeeze(-1)
        self.total += torch.where(active, terms, torch.zeros_like(terms))
        self.count += active.long()

    def scores(self) -> torch.Tensor:
        """(N,) float64, the confidence of each response (larger means more confident); computed in float64
        throughout (no down-cast).

        Raises:
            ValueError: if a response has no token yet.
        """
        if bool((self.count == 0).any()):
            raise ValueError("a response has no token yet")
        mean = self.total / self.count.to(torch.float64)
        if self.measure == "entropy":
            return -mean
        if self.measure == "distributional_perplexity":
            return -torch.exp(mean)
        if self.measure == "perplexity":
            return -torch.exp(-mean)
        return mean


def select(scores: torch.Tensor, answers: Sequence[str | None], cfg: SelectionConfig) -> Selection:
    """Choose one answer among N responses.

    Args:
        scores: (N,) float tensor, the confidence of each response (larger means more confident).
        answers: the N extracted answers (`extract_answer`), None for a response without one.
        cfg: the method and, for "borda", the power p.

    Returns:
        The chosen answer, response and votes (see `Selection`).

    Raises:
        ValueError: if N == 0, scores is not (N,), the method is unknown or the power is negative.
    """
    n = len(answers)
    if n == 0 or scores.dim() != 1 or scores.shape[0] != n:
        raise ValueError(f"need N >= 1 scores and answers, got {tuple(scores.shape)} and {n}")
    if cfg.method not in ("max", "majority", "borda"):
        raise ValueError(f"unknown method {cfg.method!r}")
    if cfg.power < 0:
        raise ValueError(f"power must be >= 0, got {cfg.power}")
    order = torch.argsort(scores, descending=True, stable=True).tolist()
    if cfg.method == "max":
        return Selection(answers[order[0]], order[0], {})
    groups: list[list[int]] = []
    for i in order:
        answer = answers[i]
        if answer is None:
            continue
        for group in groups:
            if same_answer(answers[group[0]], answer):
                group.append(i)
                break
        else:
            groups.append([i])
    if not groups:
        return Selection(None, order[0], {})
    rank = {i: r for r, i in enumerate(order, start=1)}
    power = 0.0 if cfg.method == "majority" else cfg.power
    totals = [sum(float(n - rank[i] + 1) ** power for i in group) for group in groups]
    best = max(range(len(groups)), key=lambda k: totals[k])
    votes = {str(answers[g[0]]): t for g, t in zip(groups, totals, strict=True)}
    return Selection(answers[groups[best][0]], groups[best][0], votes)


def best_of_n(model: ToyLM, prompts: Sequence[Sequence[int]], cfg: BestOfNConfig,
              generator: torch.Generator) -> list[BestOfNResult]:
    """Best-of-N for each prompt: sample N responses, score them, choose one answer.

    Args:
        model: the language model.
        prompts: the prompts (token ids, without BOS); may be empty.
        cfg: N, the scoring batch size, streaming or not, sampling and selection settings.
        generator: the random generator all sampling draws from.

    Returns:
        One result per prompt, in order; prompt k's responses are drawn by the k-th call of `sample_responses`.

    Raises:
        ValueError: if cfg.n < 1 or cfg.score_batch_size < 1.
    """
    if cfg.n < 1 or cfg.score_batch_size < 1:
        raise ValueError(f"n and score_batch_size must be >= 1, got {cfg.n}, {cfg.score_batch_size}")
    measure = cfg.selection.measure
    sampled: list[list[list[int]]] = []
    streamed: list[torch.Tensor] = []
    for prompt in prompts:
        scorer = StreamingScorer(cfg.n, measure) if cfg.streaming else None
        sampled.append(sample_responses(model, prompt, cfg.n, cfg.sampling, generator, observer=scorer))
        if scorer is not None:
            streamed.append(scorer.scores())
    if cfg.streaming:
        scores = streamed
    else:
        rows = [(list(p), r) for p, responses in zip(prompts, sampled, strict=True) for r in responses]
        flat = []
        with torch.no_grad():
            for start in range(0, len(rows), cfg.score_batch_size):
                chunk = rows[start:start + cfg.score_batch_size]
                batch = collate([p for p, _ in chunk], [r for _, r in chunk])
                flat.append(response_scores(model(batch.input_ids), batch, measure))
        scores = list(torch.cat(flat).split(cfg.n)) if flat else []
    results = []
    for responses, s in zip(sampled, scores, strict=True):
        answers = [extract_answer(r) for r in responses]
        results.append(BestOfNResult(responses, s.to(torch.float64), answers, select(s, answers, cfg.selection)))
    return results
