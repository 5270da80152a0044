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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
        # TODO: implement (see the method description).
        raise NotImplementedError

    def __call__(self, logits: torch.Tensor, tokens: torch.Tensor, active: torch.Tensor) -> None:
        """One generation step (the `Observer` protocol of bon.sampling)."""
        # TODO: implement (see the method description).
        raise NotImplementedError

    def scores(self) -> torch.Tensor:
        """(N,) float64, the confidence of each response (larger means more confident); computed in float64
        throughout (no down-cast).

        Raises:
            ValueError: if a response has no token yet.
        """
        # TODO: implement (see the method description).
        raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError


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
    # TODO: implement (see the method description).
    raise NotImplementedError
