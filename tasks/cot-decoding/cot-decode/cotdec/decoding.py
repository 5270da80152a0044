"""CoT-decoding (Section 3 of the paper): top-k branching at the first step, greedy paths, answer confidence."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from cotdec.answers import AnswerSpan, find_answer
from cotdec.config import DecodeConfig
from cotdec.model import TinyLM
from cotdec.results import CotResult, DecodedPath
from cotdec.tokenizer import Tokenizer


def decode_branches(model: TinyLM, prompt_ids: Sequence[int], cfg: DecodeConfig, eos_id: int) -> list[DecodedPath]:
    """The decoding paths of a prompt, unscored.

    Args:
        model: the language model.
        prompt_ids: the prompt's token ids (with <bos>).
        cfg: num_branches and max_new_tokens.
        eos_id: the end-of-sequence id; it ends a path and is not part of it.

    Returns:
        cfg.num_branches paths (fewer if the vocabulary is smaller); path i starts with the i-th most probable
        first token (ties: the lower token id first).
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def path_confidence(probs: torch.Tensor, span: AnswerSpan) -> float:
    """A path's confidence in its answer.

    Args:
        probs: (length, vocab) the path's next-token distributions (`DecodedPath.probs`).
        span: the answer's positions in the path.

    Returns:
        The confidence, a float.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def score_paths(paths: list[DecodedPath], tokenizer: Tokenizer) -> list[DecodedPath]:
    """Fill in each path's answer and confidence (both None for a path without an answer); returns the paths."""
    # TODO: implement (see the method description).
    raise NotImplementedError


def choose_answer(paths: list[DecodedPath], aggregate: bool) -> tuple[str | None, int | None, dict[str, float]]:
    """The chosen answer among scored paths.

    Args:
        paths: scored paths in branch order.
        aggregate: choose by the aggregated confidence of each answer instead of the single best path.

    Returns:
        (answer, best_branch, answer_scores) as in `CotResult`; ties between answers go to the answer that
        appears first in branch order, ties between paths to the lower branch. (None, None, {}) when no path
        has an answer.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError


def cot_decode(model: TinyLM, tokenizer: Tokenizer, prompt: str, cfg: DecodeConfig | None = None) -> CotResult:
    """CoT-decode a prompt: branch, continue greedily, score, and choose an answer.

    Args:
        model: the language model.
        tokenizer: its tokenizer.
        prompt: the question text (encoded with <bos>).
        cfg: the options; None means `DecodeConfig()`.

    Returns:
        The `CotResult`.
    """
    # TODO: implement (see the method description).
    raise NotImplementedError
