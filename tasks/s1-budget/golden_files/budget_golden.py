"""Budget forcing in the decoding loop, and the metrics of a test-time scaling method."""
from __future__ import annotations

from collections.abc import Sequence

import torch

from s1.answers import extract_answer
from s1.config import BudgetConfig
from s1.generation import Generation
from s1.model import State, ToyReasoner
from s1.tokenizer import ToyTokenizer


def budget_forced_generate(model: ToyReasoner, tokenizer: ToyTokenizer, prompt_ids: Sequence[int],
                           budget: BudgetConfig) -> Generation:
    """Greedy generation for one question under budget forcing.

    Args:
        model: the model (start / advance / logits).
        tokenizer: its tokenizer (delimiters; `budget.wait` and `budget.answer_prefix` are encoded with it).
        prompt_ids: the question's tokens (no delimiter).
        budget: the thinking budget; the maximum is checked before each token the model generates while thinking.

    Returns:
        Generation.

    Raises:
        ValueError: if a limit is negative, or budget.wait encodes to no token.
    """
    if budget.min_thinking_tokens < 0 or budget.min_waits < 0 or budget.max_answer_tokens < 0 or (
            budget.max_thinking_tokens is not None and budget.max_thinking_tokens < 0):
        raise ValueError("budget limits must be non-negative")
    wait_ids = tokenizer.encode(budget.wait)
    if not wait_ids:
        raise ValueError("the wait string encodes to no token")

    def greedy(state: State) -> int:
        return int(torch.argmax(model.logits(state)))

    state = model.advance(model.start(prompt_ids), tokenizer.think_id)
    thinking: list[int] = []
    waits, forced = 0, False
    while True:
        if budget.max_thinking_tokens is not None and len(thinking) >= budget.max_thinking_tokens:
            forced = True
            break
        token = greedy(state)
        if token == tokenizer.end_think_id:
            if len(thinking) >= budget.min_thinking_tokens and waits >= budget.min_waits:
                break
            waits += 1
            for t in wait_ids:
                thinking.append(t)
                state = model.advance(state, t)
            continue
        thinking.append(token)
        state = model.advance(state, token)

    state = model.advance(state, tokenizer.end_think_id)
    answer = tokenizer.encode(budget.answer_prefix) if forced else []
    for t in answer:
        state = model.advance(state, t)
    for _ in range(budget.max_answer_tokens):
        token = greedy(state)
        answer.append(token)
        if token == tokenizer.eos_id:
            break
        state = model.advance(state, token)
    return Generation(list(prompt_ids), thinking, answer, waits, forced, extract_answer(tokenizer, answer))


def control(compute: Sequence[float], a_min: float, a_max: float) -> float:
    """Control of a test-time scaling method evaluated at the compute amounts `compute`.

    Args:
        compute: the test-time compute of each evaluated setting (e.g. mean thinking tokens), at least one.
        a_min, a_max: the bounds the method is meant to respect (a_min <= a_max).

    Returns:
        float in [0, 1].

    Raises:
        ValueError: for an empty `compute` or a_min > a_max.
    """
    if not compute or a_min > a_max:
        raise ValueError("need at least one compute amount and a_min <= a_max")
    return sum(1 for a in compute if a_min <= a <= a_max) / len(compute)


def scaling(compute: Sequence[float], accuracy: Sequence[float]) -> float:
    """Scaling of a test-time scaling method evaluated at the compute amounts `compute`.

    Args:
        compute: the test-time compute of each evaluated setting, pairwise distinct, at least two.
        accuracy: the accuracy at each setting (same length).

    Returns:
        float.

    Raises:
        ValueError: for fewer than two settings, different lengths, or repeated compute amounts.
    """
    if len(compute) != len(accuracy) or len(compute) < 2 or len(set(compute)) != len(compute):
        raise ValueError("need two or more distinct compute amounts, one accuracy each")
    slopes = [(accuracy[j] - accuracy[i]) / (compute[j] - compute[i])
              for i in range(len(compute)) for j in range(i + 1, len(compute))]
    return sum(slopes) / len(slopes)


def performance(accuracy: Sequence[float]) -> float:
    """Performance of a test-time scaling method, from the accuracy at each evaluated setting (at least one).

    Raises:
        ValueError: when `accuracy` is empty.
    """
    if not accuracy:
        raise ValueError("need at least one accuracy")
    return max(accuracy)
