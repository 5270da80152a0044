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
    first = model.next_token_probs(prompt_ids)
    order = sorted(range(first.numel()), key=lambda t: (-first[t].item(), t))[: cfg.num_branches]
    paths = []
    for branch, token in enumerate(order):
        tokens: list[int] = []
        rows: list[torch.Tensor] = []
        probs, nxt = first, token
        while nxt != eos_id and len(tokens) < cfg.max_new_tokens:
            tokens.append(nxt)
            rows.append(probs)
            if len(tokens) == cfg.max_new_tokens:
                break
            probs = model.next_token_probs(list(prompt_ids) + tokens)
            nxt = int(torch.argmax(probs).item())
        stacked = torch.stack(rows) if rows else torch.zeros(0, first.numel(), dtype=first.dtype)
        paths.append(DecodedPath(branch, tokens, stacked))
    return paths


def path_confidence(probs: torch.Tensor, span: AnswerSpan) -> float:
    """A path's confidence in its answer.

    Args:
        probs: (length, vocab) the path's next-token distributions (`DecodedPath.probs`).
        span: the answer's positions in the path.

    Returns:
        The confidence, a float.
    """
    rows = probs[span.start : span.end]
    top = torch.topk(rows, 2, dim=-1).values
    return float((top[:, 0] - top[:, 1]).mean().item())


def score_paths(paths: list[DecodedPath], tokenizer: Tokenizer) -> list[DecodedPath]:
    """Fill in each path's answer and confidence (both None for a path without an answer); returns the paths."""
    for path in paths:
        path.answer = find_answer(path.tokens, tokenizer)
        path.confidence = None if path.answer is None else path_confidence(path.probs, path.answer)
    return paths


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
    best: dict[str, DecodedPath] = {}
    scores: dict[str, float] = {}
    for path in paths:
        if path.answer is None or path.confidence is None:
            continue
        text = path.answer.text
        if text not in best or path.confidence > best[text].confidence:  # type: ignore[operator]
            best[text] = path
        if aggregate:
            scores[text] = scores.get(text, 0.0) + path.confidence
        else:
            scores[text] = max(scores.get(text, path.confidence), path.confidence)
    if not scores:
        return None, None, {}
    answer = max(scores, key=lambda a: scores[a])  # first maximum in order of first appearance
    return answer, best[answer].branch, scores


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
    cfg = cfg if cfg is not None else DecodeConfig()
    paths = score_paths(decode_branches(model, tokenizer.encode(prompt), cfg, tokenizer.eos_id), tokenizer)
    answer, branch, scores = choose_answer(paths, cfg.aggregate)
    return CotResult(answer, branch, paths, scores)
